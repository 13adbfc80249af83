// libFuzzer target: JSONDocument, the in-place reader provider events go through, against
// JSONValue.parse. Besides crashing, it fails when the two disagree on whether the input is JSON
// or on any value read from it (every member and element, recursively, through JSONRef's accessors).
import Base

func check(_ ref: JSONRef, _ value: JSONValue) {
    guard ref.value == value, ref.stringValue == value.stringValue, ref.intValue == value.intValue,
          ref.doubleValue == value.doubleValue || (ref.doubleValue?.isNaN == true && value.doubleValue?.isNaN == true),
          ref.boolValue == value.boolValue, ref.isNull == value.isNull, ref.serialized == value.serialized else {
        fatalError("JSONDocument reads \(ref.serialized) where JSONValue has \(value.serialized)")
    }
    if let items = value.arrayValue {
        guard ref.arrayValue?.count == items.count, ref[items.count] == nil else { fatalError("array length differs") }
        for (i, item) in items.enumerated() { check(ref[i]!, item) }
    }
    if let members = value.objectValue {
        for (key, member) in members {
            guard let r = ref.member(key) else { fatalError("member missing") }
            check(r, member)
        }
    }
}

/// One document reused for every input, as a stream decoder reuses its document for every event:
/// what an earlier input left in its memory must not change how the next one reads.
nonisolated(unsafe) let reused = JSONDocument()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONDocument(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let expected = try? JSONValue.parse(bytes: bytes)
    let document = try? JSONDocument(bytes: bytes)
    switch (expected, document) {
    case (nil, nil): break
    case (let v?, let d?): d.withRoot { check($0, v) }
    case (nil, _?): fatalError("JSONDocument accepted what JSONValue.parse refuses")
    case (_?, nil): fatalError("JSONDocument refused what JSONValue.parse accepts")
    }
    let reusedAccepts = (try? bytes.withUnsafeBufferPointer { try reused.parse($0) }) != nil
    if reusedAccepts != (expected != nil) { fatalError("a reused JSONDocument disagrees with JSONValue.parse") }
    if let expected, reusedAccepts { reused.withRoot { check($0, expected) } }
    return 0
}
