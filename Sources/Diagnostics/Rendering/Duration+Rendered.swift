extension Duration {
  /// The duration as a person reads it, to the millisecond: `250 ms`, `1.5 s`, `30 s`, `2 min 5 s`,
  /// `1 h 30 min`; `0 s` for zero. A negative duration reads as its magnitude.
  package var rendered: String {
    // The components share their sign; magnitudes, so that no duration overflows.
    var seconds = components.seconds.magnitude
    var milliseconds = (components.attoseconds.magnitude + 500_000_000_000_000) / 1_000_000_000_000_000
    if milliseconds == 1000 {
      seconds += 1
      milliseconds = 0
    }
    let hours = seconds / 3600
    let minutes = seconds / 60 % 60
    let wholeSeconds = seconds % 60
    var parts: [String] = []
    if hours > 0 { parts.append("\(hours) h") }
    if minutes > 0 { parts.append("\(minutes) min") }
    if parts.isEmpty, wholeSeconds == 0, milliseconds > 0 { return "\(milliseconds) ms" }
    if wholeSeconds > 0 || milliseconds > 0 || parts.isEmpty {
      var fraction = milliseconds > 0 ? String(String(1000 + milliseconds).dropFirst()) : ""
      while fraction.last == "0" { fraction.removeLast() }
      parts.append("\(wholeSeconds)\(fraction.isEmpty ? "" : ".\(fraction)") s")
    }
    return parts.joined(separator: " ")
  }
}

extension Duration {
  /// The duration in whole milliseconds, toward zero, held to `Int`'s range: what JSON reports
  /// give.
  package var wholeMilliseconds: Int {
    let (seconds, attoseconds) = components
    let (product, overflowed) = Int(seconds).multipliedReportingOverflow(by: 1000)
    let (sum, overflowedAgain) = product.addingReportingOverflow(Int(attoseconds / 1_000_000_000_000_000))
    if overflowed || overflowedAgain { return seconds < 0 ? .min : .max }
    return sum
  }
}
