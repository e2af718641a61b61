import Foundation

/// Case f runs in a child process per library, so one library's heap cannot hide in another's.
enum MemoryCase {
  /// The process's peak resident memory so far, in bytes (`VmHWM`), or `nil` where `/proc` is missing.
  static func peakResident() -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kilobytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
      return kilobytes.flatMap { Int($0) }.map { $0 * 1024 }
    }
    return nil
  }

  /// The child's side: keeps `count` request scopes of `library` alive and prints how far the peak
  /// resident memory grew over the process with everything else set up.
  static func runChild(_ library: Library, count: Int) -> Never {
    let contender = library.contender
    contender.verify()
    guard let before = peakResident() else {
      print("growth n/a")
      exit(0)
    }
    let kept = contender.keepRequests(count)
    let after = peakResident() ?? before
    withExtendedLifetime(kept) {
      print("growth \(after - before)")
    }
    exit(0)
  }

  /// The parent's side: the growth in bytes, from a child process running this executable.
  static func measure(_ library: Library, count: Int) -> Int? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
    process.arguments = ["--memory-case", library.rawValue, "--count", String(count)]
    let output = Pipe()
    process.standardOutput = output
    do {
      try process.run()
    } catch {
      FileHandle.standardError.write(Data("f: could not start the child process: \(error)\n".utf8))
      return nil
    }
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      FileHandle.standardError.write(Data("f: the \(library.rawValue) child failed\n".utf8))
      exit(1)
    }
    let text = String(decoding: data, as: UTF8.self)
    guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("growth ") }) else { return nil }
    return Int(line.dropFirst("growth ".count))
  }
}

extension Library {
  /// The library's version of every case.
  var contender: any Contender {
    switch self {
    case .handWritten: HandWrittenContender()
    case .arbor: ArborContender()
    case .swinject: SwinjectContender()
    case .dependencies: DependenciesContender()
    }
  }
}
