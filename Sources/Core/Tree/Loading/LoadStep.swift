/// One step of a resolution path: a feature being loaded, where, with which context, and where it
/// was requested. What diagnostics and async loads keep; a thread's loads keep ``LoadFrame``s.
struct LoadStep: Sendable {
  let feature: any Feature.Type
  let branch: ObjectIdentifier
  let context: any Sendable
  let location: SourceLocation
}
