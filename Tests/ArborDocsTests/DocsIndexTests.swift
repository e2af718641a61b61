import Foundation
import Testing

/// `Docs/README.md`, the index of the guides on GitHub, and the README's list of guides link every
/// article of the catalogs.
@Suite struct DocsIndexTests {
  static let articles: [String] = DocsSamplesTests.catalogs.flatMap { catalog in
    let folder = ReadmeTests.root.appendingPathComponent(catalog)
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    // The catalog's landing pages (`Arbor.md`, `ArborTesting.md`) are not guides.
    return files.filter { $0.hasSuffix(".md") && !catalog.hasSuffix("/\($0.dropLast(3)).docc") }.sorted()
      .map { "\(catalog)/\($0)" }
  }

  @Test func theCatalogsHaveArticles() {
    #expect(Self.articles.count >= 10)
  }

  @Test(arguments: ["Docs/README.md", "README.md"])
  func theIndexLinksEveryArticle(index: String) throws {
    let text = try String(contentsOf: ReadmeTests.root.appendingPathComponent(index), encoding: .utf8)
    for article in Self.articles {
      #expect(text.contains("\(article))"), "\(index) does not link \(article)")
    }
  }
}
