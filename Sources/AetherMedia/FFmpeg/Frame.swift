import CFFmpeg

/// Owns an `AVFrame`; freed exactly once.
public final class Frame: @unchecked Sendable {  // handed from thread to thread, one owner at a time
    package let pointer: UnsafeMutablePointer<AVFrame>

    public init() throws(FFmpegError) {
        guard let p = av_frame_alloc() else { throw .outOfMemory("av_frame_alloc") }
        pointer = p
    }

    deinit {
        var doomed: UnsafeMutablePointer<AVFrame>? = pointer
        av_frame_free(&doomed)
    }

    public var width: Int { Int(pointer.pointee.width) }
    public var height: Int { Int(pointer.pointee.height) }
    /// Best-effort presentation timestamp in the stream time base.
    public var pts: Int64? {
        let best = pointer.pointee.best_effort_timestamp
        if best != aether_AV_NOPTS_VALUE() { return best }
        return pointer.pointee.pts == aether_AV_NOPTS_VALUE() ? nil : pointer.pointee.pts
    }
    /// The frame's own `pts`, nil when unset. A filter graph's output must be read this way:
    /// filters rescale `pts` to their output time base (bwdif doubles it) but copy the input's
    /// `best_effort_timestamp` unchanged, in the input's time base.
    public var filterPTS: Int64? { pointer.pointee.pts == aether_AV_NOPTS_VALUE() ? nil : pointer.pointee.pts }
    public var isInterlaced: Bool { aether_frame_is_interlaced(pointer) != 0 }
    public var sampleCount: Int { Int(pointer.pointee.nb_samples) }

    /// The corresponding C function is `av_frame_unref`.
    public func unref() { av_frame_unref(pointer) }

    /// A fresh frame referring to this one's payload (no copy: the buffers are shared and
    /// counted). The corresponding C function is `av_frame_ref`.
    public func reference() throws(FFmpegError) -> Frame {
        let other = try Frame()
        let r = av_frame_ref(other.pointer, pointer)
        guard r >= 0 else { throw FFmpegError(code: r, function: "av_frame_ref") }
        return other
    }

    /// Moves the payload into a fresh frame (this one becomes empty).
    public func take() throws(FFmpegError) -> Frame {
        let moved = try Frame()
        av_frame_move_ref(moved.pointer, pointer)
        return moved
    }

    func hasSideData(_ type: AVFrameSideDataType) -> Bool {
        av_frame_get_side_data(pointer, type) != nil
    }
}
