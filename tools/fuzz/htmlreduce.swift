// libFuzzer target: fetch_url's HTML-to-text reducer (Sources/Research/HTMLReducer.swift). Any
// bytes must reduce without crashing, within the character budget, with no control characters
// other than newlines in the text, and without script content leaking through.
import Research

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTMLReduce(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let budget = 2_000
    let reduced = HTMLReducer.reduce(bytes, budget: budget)
    precondition(reduced.text.count <= budget, "text over budget")
    precondition(reduced.title.count <= 300, "title over its budget")
    precondition(!reduced.text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control character in text")
    // A script element's body never reaches the text.
    let marked = HTMLReducer.reduce(Array("<script>".utf8) + bytes.filter { $0 != 0x3C } + Array("</script>after".utf8), budget: budget)
    precondition(marked.text == "after", "script content leaked: \(marked.text.prefix(40))")
    return 0
}
