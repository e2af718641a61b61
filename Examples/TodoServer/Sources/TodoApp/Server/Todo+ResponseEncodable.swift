import Hummingbird
import TodoFeatures

/// Hummingbird answers a route that returns a todo with its JSON.
extension Todo: ResponseEncodable {}
