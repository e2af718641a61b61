import Arbor

/// Who a bearer token belongs to: one value for the whole tree.
public struct Accounts: StaticFeature {
  /// The user a token signs in, or `nil` for a token nobody has.
  public var user: @Sendable (_ token: String) -> String?

  /// Creates accounts.
  public init(user: @escaping @Sendable (_ token: String) -> String?) {
    self.user = user
  }

  /// Signs nobody in unless a test patches it.
  public static var placeholder: Accounts { Accounts(user: unimplemented("Accounts.user", placeholder: nil)) }

  /// Accounts from a fixed table of tokens to users.
  public static func fixed(_ users: [String: String]) -> Accounts {
    Accounts(user: { users[$0] })
  }
}
