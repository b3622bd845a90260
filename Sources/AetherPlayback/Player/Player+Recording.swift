import AetherBase
import AetherMedia
import FoundationEssentials

/// `--stream-record`: the playing source's packets written to a file (``StreamRecorder``).
extension Player {
    /// Starts recording the current source's playing streams to `path` (overwritten), ending
    /// any recording before; nil stops. Throws the reason the file cannot be written.
    public func record(to path: String?) throws(PlayerError) {
        guard let session = current else {
            if path != nil { throw PlayerError("nothing plays to record") }
            return
        }
        guard let path else { session.finishRecording(); return }
        // (Starting ends the recording before.)
        if let why = session.startRecording(to: path) { throw PlayerError(why) }
    }

    /// The file being recorded to (nil: none).
    public var recordingPath: String? { current?.recording.withLock { $0?.path } }
}

extension PlaybackSession {
    /// Starts recording the streams playing to `path` (after ending a recording before); the
    /// reason it cannot, also a warning of the session's.
    @discardableResult
    func startRecording(to path: String) -> String? {
        finishRecording()
        let streams = [source.video.index, control.read { $0.streams.audio }].compactMap { $0 }
        do {
            let recorder = try StreamRecorder(path: path, source: format.pointer, streams: streams)
            recording.withLock { $0 = recorder }
            return nil
        } catch {
            let why = "--stream-record: \(error.message)"
            warn(why)
            return why
        }
    }

    /// Ends the recording with the session (its trailer written).
    func finishRecording() {
        let recorder = recording.withLock { r -> StreamRecorder? in defer { r = nil }; return r }
        _ = recorder?.finish()
    }
}
