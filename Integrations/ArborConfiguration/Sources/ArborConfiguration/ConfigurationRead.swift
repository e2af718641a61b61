import Configuration

/// What one read of a property's key found: a value (with its provider and whether it is secret),
/// nothing, or a value that does not parse.
enum ConfigurationRead<Value> {
  case value(Value, isSecret: Bool)
  case none
  case invalid(provider: String, cause: String)

  /// Reads the value at `key` in `snapshot`; `isSecret` makes it secret whatever the provider says.
  init(key configurationKey: String, isSecret alwaysSecret: Bool, in snapshot: ConfigSnapshotReader)
  where Value: ConfigurationValue {
    let key = ConfigKey(configurationKey)
    let (value, event) = AccessRecorder.recording {
      Value.configurationValue(at: key, in: snapshot, isSecret: alwaysSecret)
    }
    let last = event?.providerResults.last
    if let value {
      // Without an event (a reader that does not report), nothing says it is not a secret.
      let isSecret = event.map { event in (try? event.result.get())??.isSecret ?? true } ?? true
      self = .value(value, isSecret: isSecret || alwaysSecret)
    } else if let event, let conversionError = event.conversionError {
      self = .invalid(provider: last?.providerName ?? "the reader", cause: String(describing: conversionError))
    } else if let last, case .failure(let error) = last.result {
      self = .invalid(provider: last.providerName, cause: String(describing: error))
    } else {
      self = .none
    }
  }
}
