// Placeholder: the Journal module is built in its own issue.
