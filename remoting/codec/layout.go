package codec

// headerLayout is filled in by the decoder (placeholder until the codec lands).
type headerLayout struct{}
