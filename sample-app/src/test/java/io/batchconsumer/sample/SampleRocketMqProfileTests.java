package io.batchconsumer.sample;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.resttestclient.autoconfigure.AutoConfigureRestTestClient;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.client.RestTestClient;

import io.batchconsumer.core.Transport;
import io.batchconsumer.sample.OrderPublisher.PublishResult;
import io.batchconsumer.core.rocketmq.RocketMqTransport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code rocketmq} profile on a real in-process RocketMQ name server and broker: the same
 * listeners, unchanged, run on the RocketMQ transport; published orders are all processed and
 * audited. The profile only sets the transport and the name server.
 *
 * <p>The name server and broker are not shut down by the test: the cached Spring context closes
 * (and its listeners drain and commit) at JVM exit, after any {@code @AfterAll}, and needs them.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "batch-consumer.commit.interval=100ms", "sample.slow-share=0" })
@ActiveProfiles("rocketmq")
@AutoConfigureRestTestClient
class SampleRocketMqProfileTests {

	@TempDir
	static Path directory;

	private static NamesrvController nameServer;

	private static BrokerController broker;

	@Autowired
	private RestTestClient client;

	@Autowired
	private JdbcTemplate jdbcTemplate;

	@Autowired
	private Transport transport;

	@DynamicPropertySource
	static void rocketMqAndDatabase(DynamicPropertyRegistry registry) throws Exception {
		String address = startRocketMq(directory.resolve("rocketmq"));
		registry.add("batch-consumer.rocketmq.name-server", () -> address);
		registry.add("spring.datasource.url", () -> "jdbc:h2:file:" + directory.resolve("sample").toAbsolutePath()
				+ ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE");
	}

	@Test
	void ordersAreProcessedOnRocketMq() {
		assertThat(this.transport).isInstanceOf(RocketMqTransport.class);
		PublishResult published = this.client.post()
			.uri("/orders?count=500&latencyMs=1")
			.exchange()
			.expectStatus()
			.isOk()
			.expectBody(PublishResult.class)
			.returnResult()
			.getResponseBody();
		assertThat(published).isNotNull();
		assertThat(published.stored()).isEqualTo(500);
		await().atMost(Duration.ofSeconds(60))
			.untilAsserted(() -> assertThat(this.jdbcTemplate.queryForObject(
					"SELECT COUNT(*) FROM processed_orders WHERE id LIKE ?", Long.class, published.requestId() + "-%"))
				.isEqualTo(500));
	}

	/** Starts a name server and a broker (DESIGN.md §8) with topics orders and audit, 4 queues each. */
	private static String startRocketMq(Path root) throws Exception {
		int port = freePort();
		NamesrvConfig namesrvConfig = new NamesrvConfig();
		namesrvConfig.setKvConfigPath(root.resolve("namesrv/kv.json").toString());
		namesrvConfig.setConfigStorePath(root.resolve("namesrv/namesrv.properties").toString());
		NettyServerConfig namesrvNetty = new NettyServerConfig();
		namesrvNetty.setListenPort(port);
		nameServer = new NamesrvController(namesrvConfig, namesrvNetty);
		nameServer.initialize();
		nameServer.start();
		String address = "127.0.0.1:" + port;
		BrokerConfig config = new BrokerConfig();
		config.setBrokerName("sample-broker");
		config.setNamesrvAddr(address);
		config.setBrokerIP1("127.0.0.1");
		NettyServerConfig netty = new NettyServerConfig();
		netty.setListenPort(freePortPair());
		MessageStoreConfig store = new MessageStoreConfig();
		store.setStorePathRootDir(root.resolve("store").toString());
		store.setStorePathCommitLog(root.resolve("store/commitlog").toString());
		store.setMappedFileSizeCommitLog(16 * 1024 * 1024);
		store.setMappedFileSizeConsumeQueue(100_000 * 20);
		store.setMaxIndexNum(10_000);
		store.setMaxHashSlotNum(1_000);
		store.setTimerWheelEnable(false);
		store.setHaListenPort(freePort());
		broker = new BrokerController(config, netty, new NettyClientConfig(), store);
		assertThat(broker.initialize()).isTrue();
		broker.start();
		for (String topic : new String[] { "orders", "audit" }) {
			broker.getTopicConfigManager()
				.createTopicIfAbsent(new TopicConfig(topic, 4, 4, PermName.PERM_READ | PermName.PERM_WRITE), true);
		}
		DefaultMQProducer probe = new DefaultMQProducer("sample-probe");
		probe.setNamesrvAddr(address);
		probe.setInstanceName("sample-probe");
		probe.start();
		try {
			await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
				broker.registerBrokerAll(true, false, true);
				try {
					return probe.fetchPublishMessageQueues("orders").size() == 4
							&& probe.fetchPublishMessageQueues("audit").size() == 4;
				}
				catch (Exception ex) {
					return false; // not routed yet
				}
			});
		}
		finally {
			probe.shutdown();
		}
		return address;
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A port {@code p} such that {@code p - 2} is free too (the broker's fast port). */
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
