import Arbor

/// A credential that renewals replace: its `value` says which load made it.
struct ExpiringToken: CacheableFeature {
  var value: Int
  static var placeholder: ExpiringToken { ExpiringToken(value: -1) }
}

/// A client built on an ``ExpiringToken``: `token` is the value of the token it was built with.
struct TokenClient: CacheableFeature {
  var token: Int
  static var placeholder: TokenClient { TokenClient(token: -1) }
}
