// Placeholder until the ReferenceFoods module lands.
import Testing
