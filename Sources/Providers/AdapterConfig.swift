// What every wire adapter needs to reach its provider: endpoint, key, model, headers, timeouts.
import Base
import Foundation
import HTTP
/// Connection settings for one adapter. Built by `ProviderConfig` from flags, environment and
/// config.json, or directly in tests.
public struct AdapterConfig: Sendable {
    /// Provider name as the user configured it ("gemini", "openai", "openrouter", "ollama", ...).
    public var provider: String
    /// Base URL without a trailing slash, e.g. "https://api.openai.com/v1",
    /// "https://generativelanguage.googleapis.com/v1beta", "https://res.openai.azure.com".
    public var baseURL: String
    /// The key, or nil for keyless local servers. Never printed.
    public var apiKey: String?
    /// Model (or Azure deployment) name as sent to the provider.
    public var model: String
    /// Extra request headers (OpenRouter attribution, proxies).
    public var extraHeaders: [HTTPHeader]
    public var timeouts: HTTPTimeouts
    /// The environment variable a person should check when the key is rejected.
    public var keyVariable: String
    /// Extra top-level request body fields merged into every request (e.g. Responses
    /// `reasoning`, Anthropic `thinking`, Gemini `generationConfig` is merged field by field).
    public var extraBody: [String: JSONValue]
    /// Declare the provider's own web search (and fetch, where it has one) in every request
    /// (`research: native`); see docs/RESEARCH.md for each wire's tool.
    public var nativeWebSearch = false

    public init(provider: String, baseURL: String, apiKey: String?, model: String,
                extraHeaders: [HTTPHeader] = [], timeouts: HTTPTimeouts = HTTPTimeouts(),
                keyVariable: String = "", extraBody: [String: JSONValue] = [:]) {
        self.provider = provider
        var base = baseURL
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base
        self.apiKey = apiKey
        self.model = model
        self.extraHeaders = extraHeaders
        self.timeouts = timeouts
        self.keyVariable = keyVariable
        self.extraBody = extraBody
    }
}

extension AdapterConfig {
    /// The origin stamped on continuation items this adapter receives: family, base URL and
    /// model. Opaque continuation (signatures, encrypted reasoning, reasoning details) is
    /// replayed only to the same origin: another server may reject unknown fields, and another
    /// model may fail to verify the blob (OpenAI answers `invalid_encrypted_content`).
    /// The base URL goes in without user info, query or fragment: the origin is stored with the
    /// thread, and a configured URL may carry credentials.
    func continuationOrigin(family: String, model: String? = nil) -> String {
        var url = baseURL
        if var c = URLComponents(string: baseURL) {
            c.user = nil; c.password = nil; c.query = nil; c.fragment = nil
            url = c.string ?? baseURL
        }
        return "\(family) \(url) \(model ?? self.model)"
    }
}

/// Bounds on what a `WebSources` item keeps of a page the provider fetched (the Research module
/// stores at most this much of a page too).
enum WebSourcesLimits {
    static let pageCharacters = 40_000
}
