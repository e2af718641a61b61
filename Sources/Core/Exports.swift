@_exported import ArborDiagnostics
@_exported import ArborScopes
