// An app's configuration code imports ArborConfiguration and swift-configuration's module:
// Arbor's own API (`FeaturesRoot`, `FeaturesProperty`) comes with the first.
@_exported import Arbor
