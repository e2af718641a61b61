import Arbor
import ArborConfiguration
import ArborTesting
import Configuration
import Testing

@Suite struct SecretTests {
  static let token = "tok-3f9a71"
  static let signingKey = "key-b70c2e"

  /// A root whose APIToken the environment marks secret, and whose SigningKey is secret by its type.
  static func root(observer: (any FeaturesObserver)? = nil) -> Features {
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(
        environmentVariables: ["API_TOKEN": token, "SIGNING_KEY": signingKey, "HTTP_PORT": "9090"],
        secretsSpecifier: .specific(["API_TOKEN"])))
    return FeaturesRoot(observer: observer) { registry in
      registry.configure(APIToken.self, SigningKey.self, ServerPort.self, from: configuration)
      registry.defineScope(SessionScope.self) { _ in }
      registry.use(Client.live())
    }
  }

  @Test func theAppReadsTheSecretValue() {
    let root = Self.root()
    #expect(root[APIToken.self] == Self.token)
    #expect(root[SigningKey.self] == Self.signingKey)
  }

  @Test func whichAndItsJSONNeverShowASecret() throws {
    let root = Self.root()
    let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
    session[APIToken.self] = "not-secret"  // a value set on a branch is the app's own: shown
    for origin in [root.which(APIToken.self), root.which(SigningKey.self), session.which(APIToken.self)] {
      for text in [origin.description, origin.summary(), origin.json(), origin.json(pretty: false)] {
        #expect(!text.contains(Self.token) && !text.contains(Self.signingKey), "\(text)")
      }
    }
    #expect(root.which(APIToken.self).summary().hasPrefix("APIToken is <redacted>, registry.set at "))
    #expect(root.which(SigningKey.self).value?.value == "<redacted>")
    #expect(session.which(APIToken.self).value?.value == "not-secret")
    #expect(session.which(APIToken.self).hidden.map(\.value) == ["<redacted>", ""])
    #expect(root.which(ServerPort.self).value?.value == "9090")  // not a secret: shown
  }

  @Test func theGraphAndTheProfileNeverShowASecret() async throws {
    let profile = LoadProfile()
    let root = Self.root(observer: profile)
    let client: Client = try await root.instance()
    #expect(client.token == Self.token)
    let validation = await root.validate { contexts in
      contexts.use(Session(user: "check"), for: SessionScope.self)
    }
    for text in [
      validation.graph.mermaid(), validation.graph.dot(), validation.graph.json(), profile.report(),
      profile.chromeTrace(),
    ] {
      #expect(!text.contains(Self.token) && !text.contains(Self.signingKey))
    }
  }

  @Test func aSecretThatDoesNotParseIsReportedWithoutItsValue() {
    let invalid = InvalidValues()
    let configuration = FeaturesConfiguration(
      provider: EnvironmentVariablesProvider(
        environmentVariables: ["HTTP_PORT": "s3cr3t-port"], secretsSpecifier: .all),
      onInvalidValue: invalid.handler)
    _ = FeaturesRoot { registry in registry.configure(ServerPort.self, from: configuration) }
    #expect(invalid.rendered.count == 1)
    #expect(!invalid.rendered.joined().contains("s3cr3t-port"))
  }
}

/// A feature that reads the token as it loads.
struct Client: CacheableFeature {
  var token: String
  static var placeholder: Client { Client(token: "") }

  static func live() -> FeatureLoader {
    .cacheable { features in Client(token: features[APIToken.self]) }
  }
}
