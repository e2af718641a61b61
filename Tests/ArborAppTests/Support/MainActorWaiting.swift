import ArborTestSupport

/// Suspends, letting the main actor run other work, until `condition`, read on the main actor,
/// holds, for at most `seconds`; whether it did.
func eventuallyOnTheMainActor(seconds: Double = 30, _ condition: () -> Bool) async -> Bool {
  for _ in 0..<Int(seconds * 1_000) {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(1))
  }
  return condition()
}
