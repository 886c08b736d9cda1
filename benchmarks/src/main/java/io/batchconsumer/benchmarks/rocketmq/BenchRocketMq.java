package io.batchconsumer.benchmarks.rocketmq;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.apache.rocketmq.broker.BrokerController;
import org.apache.rocketmq.client.producer.DefaultMQProducer;
import org.apache.rocketmq.client.producer.SendStatus;
import org.apache.rocketmq.common.BrokerConfig;
import org.apache.rocketmq.common.TopicConfig;
import org.apache.rocketmq.common.constant.PermName;
import org.apache.rocketmq.common.message.Message;
import org.apache.rocketmq.common.message.MessageQueue;
import org.apache.rocketmq.common.namesrv.NamesrvConfig;
import org.apache.rocketmq.namesrv.NamesrvController;
import org.apache.rocketmq.remoting.netty.NettyClientConfig;
import org.apache.rocketmq.remoting.netty.NettyServerConfig;
import org.apache.rocketmq.store.config.MessageStoreConfig;

import io.batchconsumer.benchmarks.Records;
import io.batchconsumer.benchmarks.Scenario;

/**
 * One RocketMQ 5.3.3 name server and broker in the benchmark JVM (DESIGN.md §8: free ports incl.
 * {@code listenPort - 2} and the HA port, a shrunk store, {@code registerBrokerAll} until listed),
 * with the scenario topics filled by batch sends to each queue in turn.
 *
 * <p>Threading: used by the runner thread only.
 */
final class BenchRocketMq implements AutoCloseable {

	private final NamesrvController nameServer;

	private final BrokerController broker;

	private final String address;

	private final DefaultMQProducer producer;

	private final Set<String> filled = new HashSet<>();

	BenchRocketMq() throws Exception {
		Path directory = Files.createTempDirectory("bench-rocketmq-");
		int nameServerPort = freePort();
		NamesrvConfig namesrvConfig = new NamesrvConfig();
		namesrvConfig.setKvConfigPath(directory.resolve("namesrv/kv.json").toString());
		namesrvConfig.setConfigStorePath(directory.resolve("namesrv/namesrv.properties").toString());
		NettyServerConfig namesrvNetty = new NettyServerConfig();
		namesrvNetty.setListenPort(nameServerPort);
		this.nameServer = new NamesrvController(namesrvConfig, namesrvNetty);
		this.nameServer.initialize();
		this.nameServer.start();
		this.address = "127.0.0.1:" + nameServerPort;
		this.broker = broker(directory, this.address);
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (this.nameServer.getRouteInfoManager().getAllClusterInfo().getBrokerAddrTable().isEmpty()) {
			if (System.nanoTime() > deadline) {
				throw new IllegalStateException("The broker did not register");
			}
			this.broker.registerBrokerAll(true, false, true);
			Thread.sleep(200); // polling the name server's table: nothing to wait on
		}
		this.producer = new DefaultMQProducer("bench-filler");
		this.producer.setNamesrvAddr(this.address);
		this.producer.setInstanceName("bench-filler");
		this.producer.setSendMsgTimeout(30_000);
		this.producer.start();
	}

	private static BrokerController broker(Path directory, String nameServer) throws Exception {
		BrokerConfig config = new BrokerConfig();
		config.setBrokerName("bench-broker");
		config.setBrokerClusterName("bench");
		config.setNamesrvAddr(nameServer);
		config.setBrokerIP1("127.0.0.1");
		NettyServerConfig netty = new NettyServerConfig();
		netty.setListenPort(freePortPair());
		MessageStoreConfig store = new MessageStoreConfig();
		store.setStorePathRootDir(directory.resolve("store").toString());
		store.setStorePathCommitLog(directory.resolve("store/commitlog").toString());
		store.setMappedFileSizeCommitLog(64 * 1024 * 1024);
		store.setMappedFileSizeConsumeQueue(300_000 * 20);
		store.setMaxIndexNum(100_000);
		store.setMaxHashSlotNum(10_000);
		store.setTimerWheelEnable(false);
		store.setHaListenPort(freePort());
		BrokerController controller = new BrokerController(config, netty, new NettyClientConfig(), store);
		if (!controller.initialize()) {
			throw new IllegalStateException("The broker did not initialize");
		}
		controller.start();
		return controller;
	}

	String nameServer() {
		return this.address;
	}

	/**
	 * Creates the scenario's topic with one queue per partition and fills it once: record {@code i}
	 * goes to queue {@code i mod queues}, keyed like the Kafka scenarios.
	 * @param scenario the scenario
	 * @throws Exception when the broker fails
	 */
	void fill(Scenario scenario) throws Exception {
		String topic = topic(scenario);
		if (!this.filled.add(topic)) {
			return;
		}
		int queues = scenario.partitions();
		this.broker.getTopicConfigManager()
			.createTopicIfAbsent(new TopicConfig(topic, queues, queues, PermName.PERM_READ | PermName.PERM_WRITE), true);
		List<MessageQueue> targets = awaitQueues(topic, queues);
		long start = System.nanoTime();
		for (int queue = 0; queue < queues; queue++) {
			List<Message> batch = new ArrayList<>();
			for (long i = queue; i < scenario.records(); i += queues) {
				Message message = new Message(topic, Records.value(i, scenario.payloadBytes()));
				message.setKeys(Records.key(i, scenario.keys()));
				batch.add(message);
				if (batch.size() == 1000) {
					send(batch, targets.get(queue));
				}
			}
			send(batch, targets.get(queue));
		}
		System.out.printf("filled %s: %,d records of %d B over %d queues in %d ms%n", topic, scenario.records(),
				scenario.payloadBytes(), queues, (System.nanoTime() - start) / 1_000_000);
	}

	private List<MessageQueue> awaitQueues(String topic, int queues) throws Exception {
		long deadline = System.nanoTime() + 30_000_000_000L;
		while (true) {
			this.broker.registerBrokerAll(true, false, true);
			try {
				List<MessageQueue> found = this.producer.fetchPublishMessageQueues(topic);
				if (found.size() == queues) {
					return found.stream().sorted().toList();
				}
			}
			catch (Exception ex) {
				if (System.nanoTime() > deadline) {
					throw ex;
				}
			}
			Thread.sleep(200); // polling the name server: nothing to wait on
		}
	}

	private void send(List<Message> batch, MessageQueue queue) throws Exception {
		if (batch.isEmpty()) {
			return;
		}
		SendStatus status = this.producer.send(batch, queue).getSendStatus();
		if (status != SendStatus.SEND_OK) {
			throw new IllegalStateException("Filling failed: " + status);
		}
		batch.clear();
	}

	/**
	 * The RocketMQ topic of a scenario.
	 * @param scenario the scenario
	 * @return its topic name
	 */
	static String topic(Scenario scenario) {
		return "rmq-" + scenario.topic();
	}

	@Override
	public void close() {
		this.producer.shutdown();
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

	private static int freePortPair() {
		for (int attempt = 0; attempt < 50; attempt++) {
			int port = freePort();
			try (ServerSocket below = new ServerSocket(port - 2)) {
				return port;
			}
			catch (IOException ex) {
				// taken: try another
			}
		}
		throw new IllegalStateException("No free port pair");
	}

}
