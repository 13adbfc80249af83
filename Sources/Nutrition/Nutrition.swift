// Placeholder: the Nutrition module is built in its own issue.
