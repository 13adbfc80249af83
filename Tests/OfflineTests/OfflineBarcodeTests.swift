// The offline assistant's barcode phrases (issue 18).
import Testing
@testable import Offline

@Suite struct OfflineBarcodeTests {
    typealias R = OfflinePlanner.BarcodeRequest

    @Test func phrases() {
        #expect(OfflinePlanner.barcodeRequest("scan 3017620422003") == R(code: "3017620422003", log: false, servings: 1, meal: nil))
        #expect(OfflinePlanner.barcodeRequest("Look up 50112579.") == R(code: "50112579", log: false, servings: 1, meal: nil))
        #expect(OfflinePlanner.barcodeRequest("log 1 serving of 3017620422003") == R(code: "3017620422003", log: true, servings: 1, meal: nil))
        #expect(OfflinePlanner.barcodeRequest("log 2 servings of 3017620422003 for lunch") == R(code: "3017620422003", log: true, servings: 2, meal: "lunch"))
        #expect(OfflinePlanner.barcodeRequest("log a serving of 3017620422003") == R(code: "3017620422003", log: true, servings: 1, meal: nil))
        #expect(OfflinePlanner.barcodeRequest("log 3017620422003") == R(code: "3017620422003", log: true, servings: 1, meal: nil))
    }

    @Test func otherSentencesAreLeftToTheGrammar() {
        #expect(OfflinePlanner.barcodeRequest("log 2 eggs") == nil)
        #expect(OfflinePlanner.barcodeRequest("scan my fridge") == nil)
        #expect(OfflinePlanner.barcodeRequest("how much sodium did I have on 20261201") == nil)
        #expect(OfflinePlanner.barcodeRequest("log 0 servings of 3017620422003") == nil)
        #expect(OfflinePlanner.barcodeRequest("scan 1234567") == nil)
    }
}
