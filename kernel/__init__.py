"""The kernel every app builds on: the error envelope and the contract's pieces, ids, validation,
JSON, fields, throttles, caches, the bulk writer, signing, and the dispatcher and scheduler of
background work. It imports no app and nothing of the project package (`gateway/`), which only
assembles the apps: settings, URLs, the served applications, the admin site."""
