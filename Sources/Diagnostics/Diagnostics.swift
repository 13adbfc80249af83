// Placeholder: the Diagnostics module is built in its own issue.
