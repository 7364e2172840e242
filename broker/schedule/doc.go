// Package schedule is Apache RocketMQ's ScheduleMessageService
// (store/schedule/ScheduleMessageService.java): the messageDelayLevel
// parser, the delay offset table persisted as config/delayOffset.json, and
// the delivery service that moves due messages from SCHEDULE_TOPIC_XXXX back
// to their topics (delivery.go). A delivered copy keeps its stored
// properties whole (DELAY included, as Java); a level's offset moves past a
// message only once its copy is confirmed (PUT_OK, or AwaitConfirmed after
// a flush/slave timeout), and a written copy is never written again.
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
