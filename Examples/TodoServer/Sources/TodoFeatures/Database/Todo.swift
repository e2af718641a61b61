import Foundation

/// A todo, as the database keeps it and the API returns it.
public struct Todo: Codable, Sendable, Hashable {
  /// The todo's id, unique across owners.
  public var id: Int64
  /// What to do.
  public var title: String
  /// Whether it is done.
  public var done: Bool
  /// When it was added.
  public var createdAt: Date

  /// A todo.
  public init(id: Int64, title: String, done: Bool, createdAt: Date) {
    self.id = id
    self.title = title
    self.done = done
    self.createdAt = createdAt
  }
}
