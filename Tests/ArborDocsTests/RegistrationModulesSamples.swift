import Arbor
import Testing

// The registration modules of the catalog's article on scopes and branches
// (Sources/Core/Arbor.docc/ScopesAndBranches.md), compiled and run.

/// The billing module's accounts: one ledger for the whole tree.
struct Ledger: CacheableFeature {
  var balance: @Sendable (String) -> Int
  static var placeholder: Ledger { Ledger(balance: unimplemented("Ledger.balance", placeholder: 0)) }
}

/// The billing module's view of one session.
struct Invoices: CacheableFeature {
  var due: @Sendable () -> Int
  static var placeholder: Invoices { Invoices(due: unimplemented("Invoices.due", placeholder: 0)) }
}

/// A log any module writes to, one per branch that registers it.
struct AuditLog: CacheableFeature {
  var scope: String
  static var placeholder: AuditLog { AuditLog(scope: "placeholder") }
}

extension Ledger {
  static func live() -> FeatureLoader {
    .cacheable { features in Ledger(balance: { user in user.count * 10 }) }
  }
}

extension Invoices {
  static func live() -> FeatureLoader {
    .cacheable { features in
      let user = try features.context(for: SessionScope.self).user
      let ledger: Ledger = try features.instance()
      return Invoices(due: { ledger.balance(user) })
    }
  }
}

extension AuditLog {
  static func live(_ scope: String) -> FeatureLoader {
    .cacheable { features in AuditLog(scope: scope) }
  }
}

/// The billing module's registrations at the root.
func registerBilling(_ registry: inout FeaturesRegistry<RootFeaturesScope>) {
  registry.use(Ledger.live())
}

/// The billing module's registrations in a session.
func registerBillingSession(_ registry: inout FeaturesRegistry<SessionScope>) {
  registry.use(Invoices.live())
}

/// A module that registers in whichever scope it is given.
func registerAudit<Scope: FeaturesScope>(_ registry: inout FeaturesRegistry<Scope>) {
  registry.use(AuditLog.live("\(Scope.self)"))
}

func appTree() -> Features {
  FeaturesRoot { registry in
    registerBilling(&registry)
    registerAudit(&registry)
    registry.defineScope(SessionScope.self) { registry in
      registerBillingSession(&registry)
      registerAudit(&registry)  // a session keeps its own log
    }
  }
}

func treeOfModules() -> Features {
  let modules: [(inout FeaturesRegistry<RootFeaturesScope>) -> Void] = [registerBilling, registerAudit]
  return FeaturesRoot { registry in
    for module in modules { module(&registry) }
  }
}

@Suite struct RegistrationModulesSamplesTests {
  @Test func modulesRegisterInTheRootAndInAScope() throws {
    let root = appTree()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    let invoices: Invoices = try session.instance()
    #expect(invoices.due() == 30)
    #expect(try root.instance(of: AuditLog.self).scope == "RootFeaturesScope")
    #expect(try session.instance(of: AuditLog.self).scope == "SessionScope")
    #expect(root.which(Ledger.self).implementation?.name == "Ledger.live()")
    // The registration's site is the module's line, not the root's.
    #expect(root.which(Ledger.self).description.contains("ArborDocsTests/RegistrationModulesSamples.swift:49"))
  }

  @Test func twoModulesDefiningTheSameScopeAddUp() throws {
    let root = FeaturesRoot { registry in
      registerBilling(&registry)
      registry.defineScope(SessionScope.self, registerBillingSession)
      registry.defineScope(SessionScope.self) { registry in registerAudit(&registry) }
    }
    let session = try root.branch(SessionScope.self, context: Session(user: "cy"))
    #expect(try session.instance(of: Invoices.self).due() == 20)
    #expect(try session.instance(of: AuditLog.self).scope == "SessionScope")
  }

  @Test func aListOfModulesRegistersEachOfThem() throws {
    let root = treeOfModules()
    #expect(try root.instance(of: Ledger.self).balance("bo") == 20)
    #expect(try root.instance(of: AuditLog.self).scope == "RootFeaturesScope")
  }
}
