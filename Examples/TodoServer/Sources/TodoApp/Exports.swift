// The app's features, tree and configuration, which know no framework, come with `import TodoApp`.
@_exported import TodoFeatures
