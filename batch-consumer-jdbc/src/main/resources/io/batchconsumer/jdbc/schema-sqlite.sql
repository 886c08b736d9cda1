-- batch-consumer JDBC transport schema for SQLite. ${prefix} is replaced by batch-consumer.jdbc.table-prefix.
-- Every statement is idempotent; times are epoch milliseconds of the writing instance's clock.
-- SQLite takes the write lock of the whole file for each write transaction (BEGIN IMMEDIATE), so
-- the offsets of a queue become visible in order without row locks.

-- A topic and the number of queues (partitions) it was created with.
CREATE TABLE IF NOT EXISTS ${prefix}topic (
	topic VARCHAR(200) NOT NULL,
	queues INT NOT NULL,
	created_at BIGINT NOT NULL,
	PRIMARY KEY (topic)
);

-- One row per queue: the next offset to assign. Producers lock it for their short transaction,
-- so the offsets of a queue become visible in order and a reader never skips one.
CREATE TABLE IF NOT EXISTS ${prefix}queue (
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	next_offset BIGINT NOT NULL,
	PRIMARY KEY (topic, queue_id)
);

-- The messages; the primary key is the read index: WHERE topic = ? AND queue_id = ? AND msg_offset >= ? ORDER BY msg_offset.
CREATE TABLE IF NOT EXISTS ${prefix}message (
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	msg_offset BIGINT NOT NULL,
	msg_key VARCHAR(1000),
	headers TEXT,
	payload BLOB NOT NULL,
	created_at BIGINT NOT NULL,
	tag VARCHAR(128),
	PRIMARY KEY (topic, queue_id, msg_offset)
);

-- A consumer group's position in a queue (next offset to read) and its offset version, which
-- every take-over bumps so that a commit of the previous owner is refused.
CREATE TABLE IF NOT EXISTS ${prefix}consumer_offset (
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	next_offset BIGINT NOT NULL,
	version BIGINT NOT NULL,
	broadcast SMALLINT NOT NULL,
	updated_at BIGINT NOT NULL,
	PRIMARY KEY (group_id, topic, queue_id)
);

-- Clustering: which instance of a group holds a queue, until when.
CREATE TABLE IF NOT EXISTS ${prefix}lease (
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	owner_id VARCHAR(255) NOT NULL,
	expires_at BIGINT NOT NULL,
	PRIMARY KEY (group_id, topic, queue_id)
);

-- Clustering: the live members of a group per subscribed topic (a recent heartbeat); a topic's
-- queues are shared among its members only. A member is one consumer (container) of an instance.
CREATE TABLE IF NOT EXISTS ${prefix}member (
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	member_id VARCHAR(255) NOT NULL,
	heartbeat_at BIGINT NOT NULL,
	PRIMARY KEY (group_id, topic, member_id)
);

-- Messages that failed every attempt.
CREATE TABLE IF NOT EXISTS ${prefix}dead_letter (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	msg_offset BIGINT NOT NULL,
	msg_key VARCHAR(1000),
	headers TEXT,
	payload BLOB NOT NULL,
	attempts INT NOT NULL,
	error_class VARCHAR(500) NOT NULL,
	error_message VARCHAR(1000) NOT NULL,
	created_at BIGINT NOT NULL,
	replayed_at BIGINT
);

-- Messages sent with a delay (SendOptions.delay/deliverAt): each waits here until deliver_at, then
-- one transaction inserts it into its topic's queue and deletes it here, so queue offsets stay in
-- the order messages became visible. The tag travels in the headers (bc-tag).
CREATE TABLE IF NOT EXISTS ${prefix}schedule (
	id VARCHAR(36) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	msg_key VARCHAR(1000),
	headers TEXT,
	payload BLOB NOT NULL,
	deliver_at BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	PRIMARY KEY (id)
);

CREATE INDEX IF NOT EXISTS ${prefix}schedule_due ON ${prefix}schedule (deliver_at);

-- Exactly-once processing (processing: exactly-once): one row per committed delivery of a slice,
-- holding the offsets it finished as runs relative to first_offset ('0-49'). Written in the
-- listener's transaction; rows wholly below the committed position are deleted in the background.
-- WITHOUT ROWID: the rows live in the primary key's b-tree (a rowid table keeps a second one), so a
-- delivery's commit writes a page less. A table created earlier with a rowid keeps working as it is.
CREATE TABLE IF NOT EXISTS ${prefix}completions (
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	first_offset BIGINT NOT NULL,
	last_offset BIGINT NOT NULL,
	mark_count INT NOT NULL,
	offsets VARCHAR(4000) NOT NULL,
	completed_at BIGINT NOT NULL,
	PRIMARY KEY (group_id, topic, queue_id, first_offset)
) WITHOUT ROWID;

-- Exactly-once processing: the owner epoch of each partition of a group, in 8 rows (stripes). A new
-- owner increments all of them before it reads the marks; every delivery reads its worker's stripe
-- under a row lock as its last statement and rolls back when it changed, so a zombie commits nothing
-- after the new owner read the marks.
CREATE TABLE IF NOT EXISTS ${prefix}fences (
	group_id VARCHAR(255) NOT NULL,
	topic VARCHAR(200) NOT NULL,
	queue_id INT NOT NULL,
	stripe INT NOT NULL,
	epoch BIGINT NOT NULL,
	PRIMARY KEY (group_id, topic, queue_id, stripe)
);
