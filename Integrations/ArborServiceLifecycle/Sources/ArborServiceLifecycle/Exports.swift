// A server's target depends on one integration and imports it: Arbor's own API (`FeaturesRoot`,
// `KeyedBranches`, `FeaturesScope`) comes with it, as Arbor's test support re-exports Arbor.
@_exported import Arbor
