// How far apart two words are, for "did you mean …?" (slash commands, CLI options, approval
// rules' tool and field names, the offline assistant's typo correction).

/// Levenshtein distance over characters. With `limit`, stops as soon as the distance must exceed
/// it and returns `limit + 1` (cheap rejection of far words).
public func editDistance(_ a: String, _ b: String, limit: Int = .max) -> Int {
    let x = Array(a), y = Array(b)
    if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
    var previous = Array(0...y.count)
    var current = previous
    for i in 1...x.count {
        current[0] = i
        var rowMin = i
        for j in 1...y.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            rowMin = min(rowMin, current[j])
        }
        if rowMin > limit { return limit + 1 }
        swap(&previous, &current)
    }
    return previous[y.count]
}
