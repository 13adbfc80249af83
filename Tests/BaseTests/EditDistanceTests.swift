// editDistance: the one Levenshtein distance behind every "did you mean …?".
import Testing
@testable import Base

@Suite struct EditDistanceTests {
    @Test func distancesAndTheEarlyStop() {
        #expect(editDistance("kitten", "sitting") == 3)
        #expect(editDistance("", "abc") == 3)
        #expect(editDistance("abc", "") == 3)
        #expect(editDistance("log_itme", "log_item") == 2)
        #expect(editDistance("brekfast", "breakfast") == 1)
        #expect(editDistance("same", "same") == 0)
        #expect(editDistance("kitten", "sitting", limit: 5) == 3)
        // Past the limit: limit + 1, whatever the true distance.
        #expect(editDistance("kitten", "sitting", limit: 1) == 2)
        #expect(editDistance("abcdefgh", "zzzzzzzzzzzz", limit: 2) == 3)
    }
}
