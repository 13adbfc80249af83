// JSON helpers for Nutrition tests (sorted keys so encodings compare as strings).
import Foundation

enum JSONEncoderForTests {
    static func encode<T: Encodable>(_ v: T) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(v), as: UTF8.self)
    }
    static func decode<T: Decodable>(_ t: T.Type, _ s: String) throws -> T {
        try JSONDecoder().decode(t, from: Data(s.utf8))
    }
}
