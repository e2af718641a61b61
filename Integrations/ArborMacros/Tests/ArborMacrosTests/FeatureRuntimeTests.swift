import Arbor
import ArborTesting
import Synchronization
import Testing

/// The generated placeholders at run time: they record what hand-written ones record, at the
/// member's line, and a test container patches their members as it patches hand-written ones.
@Suite struct FeatureRuntimeTests {
  @Test func anUnpatchedMemberRecordsWhatAHandWrittenPlaceholderRecords() {
    let generated = recordedIssues { Generated.Printer.placeholder.print("hello") }
    let handWritten = recordedIssues { HandWritten.Printer.placeholder.print("hello") }
    #expect(generated == [unimplementedIssue("Printer.print", at: "ArborMacrosTests/Features.swift:17")])
    #expect(handWritten == [unimplementedIssue("Printer.print", at: "ArborMacrosTests/Features.swift:53")])
  }

  @Test func aThrowingMemberThrowsWhatAHandWrittenPlaceholderThrows() {
    var generated: (any Error)?
    var handWritten: (any Error)?
    let issues = recordedIssues {
      do { _ = try Generated.Mailer.placeholder.send("ann", "hello") } catch { generated = error }
      do { _ = try HandWritten.Mailer.placeholder.send("ann", "hello") } catch { handWritten = error }
    }
    let generatedError = generated as? FeatureUnimplemented
    let handWrittenError = handWritten as? FeatureUnimplemented
    #expect(generatedError?.member == "Mailer.send")
    #expect(handWrittenError?.member == "Mailer.send")
    #expect(generatedError?.location.description == "ArborMacrosTests/Features.swift:22")
    #expect(handWrittenError?.location.description == "ArborMacrosTests/Features.swift:58")
    // A throwing member fails a test once: with the error it throws, which the test sees.
    #expect(issues.isEmpty)
  }

  @Test func anAsyncThrowingMemberThrowsItsDiagnostic() async {
    var thrown: (any Error)?
    let issues = await recordedIssues {
      do { try await Generated.Clock.placeholder.sleep(1) } catch { thrown = error }
    }
    #expect((thrown as? FeatureUnimplemented)?.member == "Clock.sleep")
    #expect((thrown as? FeatureUnimplemented)?.location.description == "ArborMacrosTests/Features.swift:12")
    #expect(issues.isEmpty)
  }

  @Test func aValueMemberReturnsItsDefaultAndRecordsTheIssue() {
    var generated: Double?
    var handWritten: Double?
    let issues = recordedIssues {
      generated = Generated.Clock.placeholder.now()
      handWritten = HandWritten.Clock.placeholder.now()
    }
    #expect(generated == 0)
    #expect(handWritten == 0)
    #expect(
      issues == [
        unimplementedIssue("Clock.now", at: "ArborMacrosTests/Features.swift:11"),
        unimplementedIssue("Clock.now", at: "ArborMacrosTests/Features.swift:47"),
      ])
  }

  @Test func aTestContainerPatchesAGeneratedMember() throws {
    let features = TestFeatures()
    let sent = Mutex<[String]>([])
    features.patch(
      \Generated.Mailer.send,
      with: { to, body in
        sent.withLock { $0.append("\(to): \(body)") }
        return true
      })
    features.patch(\Generated.Clock.now, with: { 42 })
    let mailer: Generated.Mailer = try features.instance()
    let clock: Generated.Clock = try features.instance()
    var delivered: Bool?
    var now: Double?
    let issues = recordedIssues {
      delivered = try mailer.send("ann", "hello")
      now = clock.now()
    }
    #expect(issues.isEmpty)
    #expect(delivered == true)
    #expect(now == 42)
    #expect(sent.withLock { $0 } == ["ann: hello"])
  }

  @Test func anUnpatchedMemberOfAPatchedFeatureStillFails() async throws {
    let features = TestFeatures()
    features.patch(\Generated.Clock.now, with: { 42 })
    let clock: Generated.Clock = try await features.instance()
    var thrown: (any Error)?
    let issues = await recordedIssues {
      do { try await clock.sleep(1) } catch { thrown = error }
    }
    #expect((thrown as? FeatureUnimplemented)?.member == "Clock.sleep")
    #expect(issues.isEmpty)
  }

  @Test func inoutTypedThrowsOptionalAndValueMembers() throws {
    let shapes = Generated.Shapes.placeholder
    var text = "draft"
    var parsed: Int?
    let issues = recordedIssues {
      shapes.edit(&text)
      parsed = try shapes.parse("1")
      shapes.willLoad?()
    }
    #expect(text == "draft")
    #expect(parsed == -1)
    #expect(shapes.label == "shapes")
    #expect(
      issues == [
        unimplementedIssue("Shapes.edit", at: "ArborMacrosTests/Features.swift:28"),
        unimplementedIssue("Shapes.parse", at: "ArborMacrosTests/Features.swift:29"),
        unimplementedIssue("Shapes.willLoad", at: "ArborMacrosTests/Features.swift:30"),
      ])

    let features = TestFeatures()
    features.patch(\Generated.Shapes.edit, with: { $0 += "!" })
    try features.instance(of: Generated.Shapes.self).edit(&text)
    #expect(text == "draft!")
  }

  @Test func aGenericFeatureIsBuiltAndPatchedFromOutsideItsDeclaration() throws {
    let stored = Mutex<[String: Int]>([:])
    let cache = Generated.Cache<Int>(
      get: { key in stored.withLock { $0[key] } }, set: { key, value in stored.withLock { $0[key] = value } })
    cache.set("a", 1)
    #expect(cache.get("a") == 1)

    var value: Int?? = .some(0)
    let issues = recordedIssues { value = Generated.Cache<Int>.placeholder.get("a") }
    #expect(value == .some(nil))
    #expect(issues == [unimplementedIssue("Cache.get", at: "ArborMacrosTests/Features.swift:36")])

    let features = TestFeatures()
    features.patch(\Generated.Cache<Int>.get, with: { _ in 7 })
    #expect(try features.instance(of: Generated.Cache<Int>.self).get("b") == 7)
  }

  @Test func aScopesOwnUnimplementedDoesNotReplaceArbors() {
    let issues = recordedIssues { Shadowing.Printer.placeholder.print("hello") }
    #expect(issues == [unimplementedIssue("Printer.print", at: "ArborMacrosTests/Features.swift:70")])
  }
}
