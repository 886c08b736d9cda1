package io.batchconsumer.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;

/**
 * One real RocketMQ name server and broker per JVM (RocketMQ 5.3.3 from Maven), started on first
 * use and shut down once when the JVM exits: RocketMQ's shutdown takes about 12 s, so every test
 * class of a module (and every scenario of the benchmarks) shares them, each with topics and groups
 * of its own.
 *
 * <p>Recipe (docs/rocketmq.md, "Tests"): free ports for the name server and for the broker's pair
 * ({@code listenPort} and {@code listenPort - 2}) and its HA port; both remoting servers bound to
 * and advertised on {@code 127.0.0.1} (RocketMQ's HA acceptor has no bind-address setting and
 * listens on the wildcard address of its free port); a store of 64 MiB commit-log files;
 * {@code registerBrokerAll} until the name server lists the broker; the broker's {@link PullFaults}
 * hook is registered before it starts. Its files go to a new directory
 * under {@code target/} when the working directory has one (Maven), else under the temporary
 * directory. RocketMQ's dependencies are optional in this module: a module that uses this class
 * declares {@code rocketmq-client}, {@code rocketmq-namesrv} and {@code rocketmq-broker} itself.
 *
 * <p>{@link #withoutTopicAutoCreation()} is a second pair of the same kind whose broker runs as
 * operators run it, with {@code autoCreateTopicEnable=false}: no topic exists unless it was created
 * (the route of {@code TBW102} is not published). It is started only by the tests that need it and
 * shut down by a hook of its own, which the JVM runs beside the first one's.
 *
 * <p>Threading: {@link #instance()} and {@link #withoutTopicAutoCreation()} are synchronized; the
 * controllers and the admin producer are thread-safe.
 */
public final class SharedRocketMq {

	private static final String LOOPBACK = "127.0.0.1";

	private static SharedRocketMq instance;

	private static SharedRocketMq withoutAutoCreation;

	private final NamesrvController nameServer;

	private final String nameServerAddress;

	private final BrokerController broker;

	private final PullFaults pullFaults = new PullFaults();

	/** A producer used as an admin client: it reads routes as applications do. */
	private final DefaultMQProducer admin;

	private SharedRocketMq(Path directory, boolean autoCreateTopics) throws Exception {
		int nameServerPort = freePort();
		NamesrvConfig namesrvConfig = new NamesrvConfig();
		namesrvConfig.setKvConfigPath(directory.resolve("namesrv/kv.json").toString());
		namesrvConfig.setConfigStorePath(directory.resolve("namesrv/namesrv.properties").toString());
		this.nameServer = new NamesrvController(namesrvConfig, loopbackServer(nameServerPort));
		this.nameServer.initialize();
		this.nameServer.start();
		this.nameServerAddress = LOOPBACK + ":" + nameServerPort;
		this.broker = startBroker(directory, this.nameServerAddress, this.pullFaults, autoCreateTopics);
		this.admin = new DefaultMQProducer("shared-rocketmq-admin");
		this.admin.setNamesrvAddr(this.nameServerAddress);
		this.admin.setInstanceName("shared-rocketmq-admin-" + nameServerPort);
		this.admin.setSendMsgTimeout(30_000);
		this.admin.start();
		awaitTrue("the broker to register", () -> {
			this.broker.registerBrokerAll(true, false, true);
			return !this.nameServer.getRouteInfoManager().getAllClusterInfo().getBrokerAddrTable().isEmpty();
		});
	}

	private static BrokerController startBroker(Path directory, String nameServer, PullFaults pullFaults,
			boolean autoCreateTopics) throws Exception {
		BrokerConfig config = new BrokerConfig();
		config.setBrokerName("shared-broker");
		config.setBrokerClusterName("batch-consumer-tests");
		config.setNamesrvAddr(nameServer);
		config.setBrokerIP1(LOOPBACK);
		config.setBrokerIP2(LOOPBACK);
		config.setAutoCreateTopicEnable(autoCreateTopics);
		config.setEnablePropertyFilter(true);
		MessageStoreConfig store = new MessageStoreConfig();
		store.setStorePathRootDir(directory.resolve("store").toString());
		store.setStorePathCommitLog(directory.resolve("store/commitlog").toString());
		store.setMappedFileSizeCommitLog(64 * 1024 * 1024);
		store.setMappedFileSizeConsumeQueue(300_000 * 20);
		store.setMaxIndexNum(100_000);
		store.setMaxHashSlotNum(10_000);
		store.setTimerWheelEnable(false);
		store.setHaListenPort(freePort());
		BrokerController controller = new BrokerController(config, loopbackServer(freePortPair()),
				new NettyClientConfig(), store);
		if (!controller.initialize()) {
			throw new IllegalStateException("The broker did not initialize");
		}
		controller.registerServerRPCHook(pullFaults); // before start: the servers' hook lists are not thread-safe
		controller.start();
		return controller;
	}

	private static NettyServerConfig loopbackServer(int port) {
		NettyServerConfig netty = new NettyServerConfig();
		netty.setBindAddress(LOOPBACK);
		netty.setListenPort(port);
		return netty;
	}

	/**
	 * The running name server and broker, started on the first call.
	 * @return them
	 */
	public static synchronized SharedRocketMq instance() {
		if (instance == null) {
			instance = start(true, "shared-rocketmq-stop");
		}
		return instance;
	}

	/**
	 * A second running name server and broker whose broker creates no topic by itself
	 * ({@code autoCreateTopicEnable=false}), started on the first call.
	 * @return them
	 */
	public static synchronized SharedRocketMq withoutTopicAutoCreation() {
		if (withoutAutoCreation == null) {
			withoutAutoCreation = start(false, "shared-rocketmq-strict-stop");
		}
		return withoutAutoCreation;
	}

	private static SharedRocketMq start(boolean autoCreateTopics, String stopThreadName) {
		SharedRocketMq started;
		try {
			Path base = Files.isDirectory(Path.of("target")) ? Path.of("target")
					: Path.of(System.getProperty("java.io.tmpdir"));
			started = new SharedRocketMq(Files.createTempDirectory(base, "rocketmq-").toAbsolutePath(), autoCreateTopics);
		}
		catch (Exception ex) {
			throw new IllegalStateException("RocketMQ did not start", ex);
		}
		Runtime.getRuntime().addShutdownHook(new Thread(started::shutdown, stopThreadName));
		return started;
	}

	/**
	 * The name server's address.
	 * @return {@code 127.0.0.1:port}
	 */
	public String nameServer() {
		return this.nameServerAddress;
	}

	/**
	 * Creates a topic with this many queues (unless it exists) and waits until the name server routes
	 * all of them.
	 * @param topic the topic
	 * @param queues its read and write queues
	 * @return its queues as producers see them, sorted by queue id
	 */
	public List<MessageQueue> createTopic(String topic, int queues) {
		TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
		this.broker.getTopicConfigManager().createTopicIfAbsent(config, true);
		awaitTrue("topic " + topic + " to be routed", () -> {
			this.broker.registerBrokerAll(true, false, true);
			try {
				return this.admin.fetchPublishMessageQueues(topic).size() == queues;
			}
			catch (Exception ex) {
				return false; // not routed yet
			}
		});
		try {
			return this.admin.fetchPublishMessageQueues(topic).stream().sorted().toList();
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	/**
	 * The broker's injected pull failures: tests add rules for their own topics.
	 * @return the broker's pull faults
	 */
	public PullFaults pullFaults() {
		return this.pullFaults;
	}

	/**
	 * A started producer of the shared broker, for filling topics; the caller must not shut it down.
	 * @return the admin producer (send timeout 30 s)
	 */
	public DefaultMQProducer producer() {
		return this.admin;
	}

	/**
	 * The end offset (next offset to write) of each queue of a topic.
	 * @param topic the topic
	 * @param queues its queue count
	 * @return end offset per queue id
	 */
	public Map<Integer, Long> endOffsets(String topic, int queues) {
		Map<Integer, Long> ends = new HashMap<>();
		for (int queue = 0; queue < queues; queue++) {
			try {
				ends.put(queue, this.broker.getMessageStore().getMaxOffsetInQueue(topic, queue));
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}
		return ends;
	}

	/**
	 * The committed offset of a group on each queue of a topic, -1 where it has none.
	 * @param group the group
	 * @param topic the topic
	 * @param queues its queue count
	 * @return committed offset per queue id
	 */
	public Map<Integer, Long> committed(String group, String topic, int queues) {
		Map<Integer, Long> offsets = new HashMap<>();
		for (int queue = 0; queue < queues; queue++) {
			offsets.put(queue, this.broker.getConsumerOffsetManager().queryOffset(group, topic, queue));
		}
		return offsets;
	}

	/**
	 * Whether the group's committed offsets reached the end of every queue.
	 * @param group the group
	 * @param topic the topic
	 * @param queues its queue count
	 * @return whether every queue is committed to its end
	 */
	public boolean committedToTheEnd(String group, String topic, int queues) {
		return committed(group, topic, queues).equals(endOffsets(topic, queues));
	}

	private void shutdown() {
		this.admin.shutdown();
		this.broker.shutdown();
		this.nameServer.shutdown();
	}

	/** Polls the name server's tables (nothing to wait on) every 200 ms for up to 30 s. */
	private static void awaitTrue(String what, Condition condition) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
		while (!condition.holds()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("Timed out waiting for " + what);
			}
			try {
				Thread.sleep(200); // polling RocketMQ's route tables, not synchronising threads
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException("Interrupted waiting for " + what, ex);
			}
		}
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A port {@code p} such that {@code p} and {@code p - 2} are both free (the broker's fast port). */
	private static int freePortPair() {
		for (int attempt = 0; attempt < 50; attempt++) {
			int port = freePort();
			if (port > 1026 && isFree(port - 2)) {
				return port;
			}
		}
		throw new IllegalStateException("No free port pair");
	}

	private static boolean isFree(int port) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.bind(new InetSocketAddress(LOOPBACK, port));
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

	/** A check polled by {@link #awaitTrue}. */
	@FunctionalInterface
	private interface Condition {

		boolean holds();

	}

}
