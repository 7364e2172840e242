package configfile

import "go.uber.org/zap"

// LoadLogged is Load plus the log lines every broker table writes around it
// (TopicConfigManager, SubscriptionGroupManager, ConsumerOffsetManager and
// ScheduleMessageService all go through ConfigManager.load): an error for an
// unusable backup, a warning when a bad file was discarded, and an info line
// naming the source. what names the table for logs ("topic config").
func LoadLogged(lg *zap.Logger, what, path string, decode func(data []byte) error) error {
	src, err := Load(path, decode)
	if err != nil {
		lg.Error("load config file failed", zap.String("config", what), zap.String("path", path), zap.Error(err))
		return err
	}
	if src == SourceDiscarded {
		lg.Warn("config file unreadable and no backup, starting empty", zap.String("config", what), zap.String("path", path))
	}
	lg.Info("config file loaded", zap.String("config", what), zap.String("path", path), zap.Stringer("source", src))
	return nil
}

// PersistPretty is ConfigManager.persist: compact (a table's encode()) is
// laid out as Pretty does and written to path with Persist. Callers
// serialize their own calls so the newest snapshot lands last.
func PersistPretty(path string, compact []byte) error {
	data, err := Pretty(compact)
	if err != nil {
		return err
	}
	return Persist(path, data)
}
