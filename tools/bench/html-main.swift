// Release-build timing of fetch_url's HTML reducer on a 2 MB page (the fetch cap). Built by
// tools/bench-html.sh together with Sources/Research/HTMLReducer.swift; not part of the package.
import Foundation

@main
struct HTMLBench {
    static func cpuMilliseconds(_ body: () -> Void) -> Double {
        var start = timespec(), end = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
        return Double(end.tv_sec - start.tv_sec) * 1000 + Double(end.tv_nsec - start.tv_nsec) / 1_000_000
    }

    /// A page shaped like a restaurant's nutrition page: navigation, scripts, styles, headings,
    /// paragraphs with entities and inline markup, lists and large tables, repeated to `size` bytes.
    static func page(size: Int) -> [UInt8] {
        var html = "<!DOCTYPE html><html><head><title>Nutrition &amp; Allergens</title><meta charset=\"utf-8\">"
            + "<style>body{font:14px sans-serif}.x{color:#333}</style><script>window.dataLayer=[];function f(a){return a<1&&a>0}</script></head><body>"
        var section = 0
        while html.utf8.count < size {
            section += 1
            html += "<nav class=\"menu\"><ul><li><a href=\"/\">Home</a></li><li><a href=\"/menu\">Menu</a></li></ul></nav>"
            html += "<h2 id=\"s\(section)\">Section \(section): Bowls &amp; Burritos</h2>"
            html += "<p class=\"intro\">Our <b>burrito bowl</b> with white rice, black beans, fajita veggies &mdash; about 665&nbsp;kcal. "
                + "Values are approximate &#8212; see <a href=\"/allergens\">allergens</a>.</p>"
            html += "<ul><li>Rice: 210 kcal</li><li>Beans: 130 kcal</li><li>Chicken: 180 kcal</li></ul>"
            html += "<table class=\"n\"><tr><th>Item</th><th>kcal</th><th>Protein (g)</th><th>Sodium (mg)</th></tr>"
            for row in 0..<20 {
                html += "<tr><td><span>Item \(row)</span></td><td>\(100 + row)</td><td>\(row)</td><td>\(300 + row * 7)</td></tr>"
            }
            html += "</table><script type=\"application/ld+json\">{\"@type\":\"Menu\",\"n\":\(section)}</script><div><div><div><p>Nested</p></div></div></div>"
        }
        html += "</body></html>"
        return Array(html.utf8.prefix(size))
    }

    static func main() {
        let bytes = page(size: 2 << 20)
        var budgeted: [Double] = [], full: [Double] = []
        var characters = 0
        for _ in 0..<25 {
            budgeted.append(cpuMilliseconds { _ = HTMLReducer.reduce(bytes) })
            full.append(cpuMilliseconds { characters = HTMLReducer.reduce(bytes, budget: Int.max).text.count })
        }
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        print(String(format: "HTML reduction of a %.2f MB page: whole page (%d characters of text) median %.2f ms, max %.2f ms; "
                     + "with the 40,000-character budget median %.2f ms (CPU time, 25 runs, -O)",
                     Double(bytes.count) / 1_048_576, characters, median(full), full.max() ?? 0, median(budgeted)))
    }
}
