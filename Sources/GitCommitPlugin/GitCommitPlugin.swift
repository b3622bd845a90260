import Foundation
import PackagePlugin

/// Writes `BuildCommit.swift` for `--version`: the checkout's commit (`git rev-parse --short=12
/// HEAD`, `-dirty` when tracked files differ from it), or `AETHER_GIT_COMMIT` where there is no
/// git checkout (a source tarball), or `unknown`; and the version's suffix for a commit that is
/// not a release's tag (`v` and the version): `+git`, the commit's date (UTC) and its short hash,
/// as Debian spells a snapshot (`0.1.0+git20261127.6f7bfa9`; empty on a tagged commit and
/// without git). A prebuild command, so it runs on every build;
/// the file is rewritten only when its text changes, so an unchanged commit recompiles nothing.
@main struct GitCommitPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let directory = context.pluginWorkDirectoryURL.appending(path: "generated")
        let script = #"""
        root="$1" out="$2/BuildCommit.swift"
        mkdir -p "$2"
        commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null) || commit=""
        suffix=""
        if [ -n "$commit" ]; then
            version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' "$root/Sources/AetherControl/PlayerIdentity.swift")
            if ! git -C "$root" describe --exact-match --tags --match "v$version" HEAD >/dev/null 2>&1; then
                suffix="+git$(TZ=UTC git -C "$root" log -1 --format=%cd --date=format-local:%Y%m%d HEAD).$(git -C "$root" rev-parse --short=7 HEAD)"
            fi
            git -C "$root" diff --quiet HEAD -- 2>/dev/null || commit="$commit-dirty"
        else
            commit=$(printf '%s' "${AETHER_GIT_COMMIT:-unknown}" | tr -cd '0-9A-Za-z.+-' | cut -c1-40)
        fi
        text="/// Generated at build time by GitCommitPlugin.
        enum BuildCommit { static let id = \"${commit:-unknown}\"; static let versionSuffix = \"$suffix\" }"
        [ -f "$out" ] && [ "$(cat "$out")" = "$text" ] || printf '%s\n' "$text" > "$out"
        """#
        var environment: [String: String] = [:]
        if let given = ProcessInfo.processInfo.environment["AETHER_GIT_COMMIT"] { environment["AETHER_GIT_COMMIT"] = given }
        return [.prebuildCommand(displayName: "the git commit for --version",
                                 executable: URL(fileURLWithPath: "/bin/sh"),
                                 arguments: ["-c", script, "sh", context.package.directoryURL.path, directory.path],
                                 environment: environment,
                                 outputFilesDirectory: directory)]
    }
}
