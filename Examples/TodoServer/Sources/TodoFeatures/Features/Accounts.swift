import Arbor
import ArborMacros

/// Who a bearer token belongs to: one value for the whole tree.
@Feature
public struct Accounts: StaticFeature {
  /// The user a token signs in, or `nil` for a token nobody has. Its placeholder signs nobody in.
  public var user: @Sendable (_ token: String) -> String? = { _ in nil }

  /// Accounts from a fixed table of tokens to users.
  public static func fixed(_ users: [String: String]) -> Accounts {
    Accounts(user: { users[$0] })
  }
}
