// Package schedule holds the metadata half of Apache RocketMQ's
// ScheduleMessageService (store/schedule/ScheduleMessageService.java): the
// messageDelayLevel parser and the delay offset table persisted as
// config/delayOffset.json. The delivery service that moves due messages from
// SCHEDULE_TOPIC_XXXX back to their topics is not here.
//
// Delay level L (1-based) is served by queue L-1 of SCHEDULE_TOPIC_XXXX; the
// offset table maps L to the next consume-queue offset to deliver from it.
//
// delayOffset.json (fastjson PrettyFormat, unquoted integer keys, levels in
// ConcurrentHashMap(32) order, i.e. ascending for 1..18):
//
//	{
//		"offsetTable":{2:1,3:1
//		}
//	}
//
// Invariants: the table is guarded by one mutex that is never held across
// disk I/O; Persist serializes writers so the file always ends up with the
// latest table.
package schedule
