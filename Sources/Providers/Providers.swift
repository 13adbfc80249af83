// Placeholder: the Providers module is built in its own issue.
