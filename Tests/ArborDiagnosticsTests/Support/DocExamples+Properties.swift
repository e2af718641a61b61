import Arbor
import ArborDemoFeatures

extension DocExamples {
  /// `which(RequestTimeout.self)` on a session, after the root set the timeout at run time.
  static func whereTheTimeoutComesFrom() throws -> Features.PropertyOrigin {
    let root = FeaturesRoot { registry in
      registry.set(RequestTimeout.self, to: .seconds(10), file: "App/Main.swift", line: 12)
      registry.defineScope(SessionScope.self, file: "App/Main.swift", line: 13) { registry in
        registry.set(RequestTimeout.self, to: .seconds(5), file: "App/Main.swift", line: 14)
      }
    }
    let session = try root.branch(SessionScope.self, context: session, file: "App/Main.swift", line: 40)
    root[RequestTimeout.self, file: "App/Settings.swift", line: 42] = .seconds(1)
    return session.which(RequestTimeout.self, file: "App/Main.swift", line: 44)
  }

  /// `which(RequestTimeout.self)` where nothing sets it.
  static func theDefaultTimeout() -> Features.PropertyOrigin {
    FeaturesRoot { _ in }.which(RequestTimeout.self, file: "App/Main.swift", line: 44)
  }
}
