// ArborTesting: containers in which every feature is its placeholder, patched per test, and the
// reporter that turns an unpatched placeholder call into a Swift Testing issue or an XCTest failure.
//
// A test imports `ArborTesting` instead of `Arbor`: it re-exports everything an app sees.
@_exported import Arbor
