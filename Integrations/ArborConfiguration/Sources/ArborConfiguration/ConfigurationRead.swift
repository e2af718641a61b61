import Configuration

/// What one read of a property's key found: a value (with its provider and whether it is secret),
/// nothing, or a value that does not parse.
enum ConfigurationRead<Value> {
  case value(Value, isSecret: Bool)
  case none
  case invalid(provider: String, cause: String)

  /// Reads the value of `Property` in `snapshot`.
  init<Property: ConfigurationProperty>(_ property: Property.Type, in snapshot: ConfigSnapshotReader)
  where Value == Property.Value {
    let key = ConfigKey(Property.configurationKey)
    let (value, event) = AccessRecorder.recording {
      Value.configurationValue(at: key, in: snapshot, isSecret: Property.isSecret)
    }
    let last = event?.providerResults.last
    if let value {
      // Without an event (a reader that does not report), nothing says it is not a secret.
      let isSecret = event.map { event in (try? event.result.get())??.isSecret ?? true } ?? true
      self = .value(value, isSecret: isSecret || Property.isSecret)
    } else if let event, let conversionError = event.conversionError {
      self = .invalid(provider: last?.providerName ?? "the reader", cause: String(describing: conversionError))
    } else if let last, case .failure(let error) = last.result {
      self = .invalid(provider: last.providerName, cause: String(describing: error))
    } else {
      self = .none
    }
  }
}
