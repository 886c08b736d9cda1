package io.batchconsumer.rocketmq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;

import static org.awaitility.Awaitility.await;

/**
 * One real RocketMQ name server and broker in the test JVM (RocketMQ 5.3.3 from Maven), started on
 * first use and shut down once when the JVM exits: RocketMQ's shutdown takes about 12 s, so every
 * test of the module shares them and uses topics and groups of its own.
 *
 * <p>Recipe (DESIGN.md §8): free ports for the name server and for the broker's pair
 * ({@code listenPort} and {@code listenPort - 2}) and its HA port; a store shrunk to 16 MiB commit-log
 * files; {@code registerBrokerAll} until the name server lists the broker; {@code user.home} points
 * into {@code target/} (set by the module's surefire configuration).
 *
 * <p>Threading: {@link #get()} is synchronized; the controllers are thread-safe.
 */
final class EmbeddedRocketMq {

	private static EmbeddedRocketMq instance;

	private final NamesrvController nameServer;

	private final BrokerController broker;

	private final String nameServerAddress;

	/** A producer used as an admin client: it reads routes as applications do. */
	private final DefaultMQProducer admin;

	private EmbeddedRocketMq(Path directory) throws Exception {
		int nameServerPort = freePort();
		NamesrvConfig namesrvConfig = new NamesrvConfig();
		namesrvConfig.setKvConfigPath(directory.resolve("namesrv/kv.json").toString());
		namesrvConfig.setConfigStorePath(directory.resolve("namesrv/namesrv.properties").toString());
		NettyServerConfig namesrvNetty = new NettyServerConfig();
		namesrvNetty.setListenPort(nameServerPort);
		this.nameServer = new NamesrvController(namesrvConfig, namesrvNetty);
		this.nameServer.initialize();
		this.nameServer.start();
		this.nameServerAddress = "127.0.0.1:" + nameServerPort;
		this.broker = startBroker(directory);
		this.admin = new DefaultMQProducer("embedded-rocketmq-admin");
		this.admin.setNamesrvAddr(this.nameServerAddress);
		this.admin.setInstanceName("embedded-rocketmq-admin");
		this.admin.start();
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
			this.broker.registerBrokerAll(true, false, true);
			return !this.nameServer.getRouteInfoManager().getAllClusterInfo().getBrokerAddrTable().isEmpty();
		});
	}

	private BrokerController startBroker(Path directory) throws Exception {
		BrokerConfig config = new BrokerConfig();
		config.setBrokerName("broker-a");
		config.setBrokerClusterName("batch-consumer-tests");
		config.setNamesrvAddr(this.nameServerAddress);
		config.setBrokerIP1("127.0.0.1");
		config.setAutoCreateTopicEnable(true);
		config.setEnablePropertyFilter(true);
		NettyServerConfig netty = new NettyServerConfig();
		netty.setListenPort(freePortPair());
		MessageStoreConfig store = new MessageStoreConfig();
		store.setStorePathRootDir(directory.resolve("store").toString());
		store.setStorePathCommitLog(directory.resolve("store/commitlog").toString());
		store.setMappedFileSizeCommitLog(16 * 1024 * 1024);
		store.setMappedFileSizeConsumeQueue(100_000 * 20);
		store.setMaxIndexNum(10_000);
		store.setMaxHashSlotNum(1_000);
		store.setTimerWheelEnable(false);
		store.setHaListenPort(freePort());
		BrokerController controller = new BrokerController(config, netty, new NettyClientConfig(), store);
		if (!controller.initialize()) {
			throw new IllegalStateException("The broker did not initialize");
		}
		controller.start();
		return controller;
	}

	/**
	 * The running name server and broker, started on first use.
	 * @return them
	 */
	static synchronized EmbeddedRocketMq get() {
		if (instance == null) {
			try {
				Path directory = Files.createTempDirectory(Path.of("target"), "rocketmq-");
				instance = new EmbeddedRocketMq(directory.toAbsolutePath());
			}
			catch (Exception ex) {
				throw new IllegalStateException("RocketMQ did not start", ex);
			}
			Runtime.getRuntime().addShutdownHook(new Thread(instance::shutdown, "rocketmq-shutdown"));
		}
		return instance;
	}

	String nameServer() {
		return this.nameServerAddress;
	}

	/**
	 * Creates a topic with this many queues and waits until the name server routes it.
	 * @param topic the topic
	 * @param queues its read and write queues
	 */
	void createTopic(String topic, int queues) {
		TopicConfig config = new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE);
		this.broker.getTopicConfigManager().createTopicIfAbsent(config, true);
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
			this.broker.registerBrokerAll(true, false, true);
			try {
				return this.admin.fetchPublishMessageQueues(topic).size() == queues;
			}
			catch (Exception ex) {
				return false; // not routed yet
			}
		});
	}

	/**
	 * The end offset (next offset to write) of each queue of a topic.
	 * @param topic the topic
	 * @param queues its queue count
	 * @return end offset per queue id
	 */
	Map<Integer, Long> endOffsets(String topic, int queues) {
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
	Map<Integer, Long> committed(String group, String topic, int queues) {
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
	boolean committedToTheEnd(String group, String topic, int queues) {
		return committed(group, topic, queues).equals(endOffsets(topic, queues));
	}

	BrokerController broker() {
		return this.broker;
	}

	private void shutdown() {
		this.admin.shutdown();
		this.broker.shutdown();
		this.nameServer.shutdown();
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
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
		try (ServerSocket socket = new ServerSocket(port)) {
			return true;
		}
		catch (IOException ex) {
			return false;
		}
	}

}
