// Placeholder: the ReferenceFoods module is built in the Foundation issue.
