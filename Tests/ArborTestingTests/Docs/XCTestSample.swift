// Sources/Testing/ArborTesting.docc/TestingFeatures.md, "XCTest".
import ArborDemoFeatures
import ArborTesting
import Synchronization
import XCTest

final class GreeterXCTests: XCTestCase {
  func testGreetsTheSessionUser() throws {
    let printed = Mutex<[String]>([])
    let features = TestFeatures()
    features.patch(\Printer.print, with: { line in printed.withLock { $0.append(line) } })
    features.use(context: Session(user: "ann"), for: SessionScope.self)
    let greeter: Greeter = try features.load(Greeter.live())
    try greeter.greet()
    XCTAssertEqual(printed.withLock { $0 }, ["Hello ann"])
  }
}
