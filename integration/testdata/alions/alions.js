'use strict';

// Driven by integration/alions_test.go: ali-ons produces and consumes
// through the name server given on the command line. Every event is one
// JSON line on stdout, for the Go test to check:
//   {"event":"sent","i":0,"status":"SEND_OK","msgId":"..","queueId":1,"queueOffset":0}
//   {"event":"received","body":"..","tags":"..","keys":"..","msgId":"..","topic":"..","reconsumeTimes":0}
//   {"event":"done"}
// Usage: node alions.js '<config JSON>', config
//   {"nameSrv":"127.0.0.1:9876","topic":"T","producerGroup":"pg","consumerGroup":"cg",
//    "first":0,"n":8,"skip":2,"retryIndex":-1}
// Messages i = first .. first+skip-1 carry tag TagC (not subscribed); the n
// after them alternate TagA (even i) and TagB and carry key "key-<i>" and
// body bodyOf(i): "alions-body-<i>", padded past 4 KiB when i % 5 == 3 so
// that ali-ons sends it zlib-compressed (sysFlag COMPRESSED). The consumer subscribes "TagA || TagB" from the
// first offset and exits once it has seen n messages. With retryIndex >= 0
// the handler asks once for message retryIndex to be retried (ali-ons sends
// it back to the broker) and the consumer also waits for its second
// delivery.

const { Producer, Consumer, Message } = require('ali-ons');

const cfg = JSON.parse(process.argv[2]);
const { nameSrv, topic, producerGroup, consumerGroup, first, n, skip } = cfg;
const bodyOf = i => (i % 5 === 3 ? `alions-body-${i}-${'z'.repeat(5000)}` : `alions-body-${i}`);
const retryBody = cfg.retryIndex >= 0 ? bodyOf(cfg.retryIndex) : null;

const logger = {
  info() {},
  debug() {},
  warn(...args) { console.error('warn', ...args); },
  error(...args) { console.error('error', ...args); },
};

// ali-ons needs an http client only to look the name server up from an
// ONS address server; nameSrv makes it unused.
const httpclient = {
  request() { throw new Error('no http lookups in this test'); },
};

function emit(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

async function produce() {
  const producer = new Producer({ httpclient, logger, nameSrv, producerGroup });
  await producer.ready();
  for (let i = first; i < first + skip + n; i++) {
    const tag = i < first + skip ? 'TagC' : (i % 2 === 0 ? 'TagA' : 'TagB');
    const msg = new Message(topic, tag, bodyOf(i));
    msg.keys = [ `key-${i}` ];
    const r = await producer.send(msg);
    emit({
      event: 'sent', i, status: r.sendStatus, msgId: r.msgId,
      queueId: Number(r.messageQueue.queueId), queueOffset: Number(r.queueOffset),
    });
  }
  await producer.close();
}

async function consume() {
  const consumer = new Consumer({
    httpclient, logger, nameSrv, consumerGroup,
    consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
    brokerSuspendMaxTimeMillis: 2000,
  });
  let seen = 0;
  let retried = retryBody === null;
  let resolveAll;
  const all = new Promise(resolve => { resolveAll = resolve; });
  consumer.on('error', err => console.error('consumer error', err));
  consumer.subscribe(topic, 'TagA || TagB', async msg => {
    const body = msg.body.toString();
    emit({
      event: 'received', topic: msg.topic, body,
      tags: msg.tags, keys: msg.keys, msgId: msg.msgId, reconsumeTimes: msg.reconsumeTimes,
    });
    if (body === retryBody && msg.reconsumeTimes === 0) {
      return Consumer.ACTION_RETRY;
    }
    if (body === retryBody) {
      retried = true;
    } else {
      seen++;
    }
    if (seen >= n - (retryBody === null ? 0 : 1) && retried) resolveAll();
  });
  await consumer.ready();
  await all;
  // the consume loop records a message's offset only after its handler
  // returned: let it catch up so that close() commits every offset
  while ([ ...consumer.processQueueTable.values() ].some(({ processQueue }) => processQueue.msgCount > 0)) {
    await new Promise(resolve => setImmediate(resolve));
  }
  await consumer.close();
}

(async () => {
  await produce();
  await consume();
  emit({ event: 'done' });
  process.exit(0);
})().catch(err => {
  console.error('fatal', err);
  process.exit(1);
});
