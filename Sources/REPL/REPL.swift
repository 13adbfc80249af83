// Placeholder: the REPL module is built in its own issue.
