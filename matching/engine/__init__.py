"""The intent engine, the only door to the language model that resolves shoppers' words:
`client` (the calls, their cache and their errors), `resolution` (the prompt it reads and what
it must answer), `breaker` (an outage stops the calls), `failures` (what a failed call says),
`process` (litellm's calls in a process beside each web worker) and `warm_up` (a web worker's
engine ready before its first request)."""
