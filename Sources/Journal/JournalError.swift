// Errors JournalStore throws: one line naming the field or id and what to do next.
import Base
import Nutrition

public enum JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A field failed validation.
    case invalid(field: String, reason: String)
    /// No row with this id (kind: "entry", "saved food").
    case notFound(kind: String, id: String)
    /// A backup written by a newer ofj.
    case newerBackup(version: Int, supported: Int)
    /// A backup that is not valid JSON of the expected shape.
    case malformedBackup(String)
    /// A stored row that cannot be read back (damaged or edited by hand).
    case corruptRow(String)
    /// A domain rule from Nutrition (units, conversions, text, dates).
    case nutrition(NutritionError)

    public var description: String {
        switch self {
        case .invalid(let field, let reason): return "\(field) \(reason)"
        case .notFound(let kind, let id): return "no \(kind) with id \(id): check the id and try again"
        case .newerBackup(let v, let s):
            return "backup schema_version \(v) is newer than this ofj supports (\(s)): upgrade ofj to import it"
        case .malformedBackup(let why): return "backup file is not a valid ofj backup (\(why)): check the file"
        case .corruptRow(let what): return "the journal database has an unreadable \(what): restore a backup or run ofj doctor"
        case .nutrition(let e): return e.description
        }
    }
}

/// Runs `body`, turning NutritionError (and CalendarDay's InvalidDate, which is one of its kinds)
/// into JournalError so callers catch one type.
@inline(__always)
func domain<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let e as NutritionError { throw JournalError.nutrition(e) } catch let e as InvalidDate {
        throw JournalError.nutrition(.invalidDate(e.text))
    }
}
