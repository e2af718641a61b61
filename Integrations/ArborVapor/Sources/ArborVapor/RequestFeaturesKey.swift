import Arbor
import Vapor

/// Where ``FeaturesMiddleware`` keeps a request's branch in the request's storage.
struct RequestFeaturesKey: StorageKey {
  typealias Value = Features
}
