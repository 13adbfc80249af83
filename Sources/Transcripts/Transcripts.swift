// Placeholder: the Transcripts module is built in its own issue.
