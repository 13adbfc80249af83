// Providers read config.json and the credentials file where every other section is read from:
// AppPaths' rules, which ignore a relative XDG_CONFIG_HOME (ProviderFiles used to follow it, so
// providers and sync read one file while rules and meals read another).
import Foundation
import Providers
import Testing
import TestSupport

@Suite struct ConfigPathTests {
    @Test func aRelativeXDGConfigHomeIsIgnoredLikeEverywhereElse() {
        let env = ["HOME": "/h", "XDG_CONFIG_HOME": "relative/config"]
        #expect(ProviderFiles.configPath(environment: env) == "/h/.config/ofj/config.json")
        #expect(CredentialsFile.path(environment: env) == "/h/.config/ofj/credentials")
        let absolute = ["HOME": "/h", "XDG_CONFIG_HOME": "/c"]
        #expect(ProviderFiles.configPath(environment: absolute) == "/c/ofj/config.json")
        #expect(CredentialsFile.path(environment: absolute) == "/c/ofj/credentials")
    }

    @Test func theProviderFieldsComeFromHomesConfigWhenXDGConfigHomeIsRelative() throws {
        let home = TempDirectory()
        try FileManager.default.createDirectory(atPath: home.file(".config/ofj"), withIntermediateDirectories: true)
        try #"{"provider": "anthropic"}"#.write(toFile: home.file(".config/ofj/config.json"), atomically: true, encoding: .utf8)
        let loaded = ProviderFiles.load(environment: ["HOME": home.path, "XDG_CONFIG_HOME": "config"])
        #expect(loaded.file?.provider == "anthropic")
        #expect(loaded.problems.isEmpty)
    }
}
