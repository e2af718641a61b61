import Arbor

/// The demo's trees: the one `arbor-demo` tours, and the one with its deliberate mistake.
///
/// ```swift
/// let session = try DemoTree.root().branch(SessionScope.self, context: Session(user: "ann"))
/// ```
public enum DemoTree {
  /// A clock at 42, a console printer, and a greeter and a guestbook (torn down when its session
  /// closes) in every session branch.
  ///
  /// - Parameter onGreeterLoad: Called each time `Greeter.live()` runs; the demo counts loads with it.
  /// - Returns: The root features.
  public static func root(onGreeterLoad: @escaping @Sendable () -> Void = {}) -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.use(Printer.console())
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.live(onLoad: onGreeterLoad))
        registry.use(Guestbook.printed())
      }
    }
  }

  /// The deliberate mistake: session branches whose greeter needs a ``Mailer`` nobody registered.
  ///
  /// - Returns: The root features; requesting a session's ``Greeter`` fails with the missing Mailer.
  public static func broken() -> Features {
    FeaturesRoot { registry in
      registry.use(Clock(now: { 42 }))
      registry.defineScope(SessionScope.self) { registry in
        registry.use(Greeter.mailing())
      }
    }
  }
}
