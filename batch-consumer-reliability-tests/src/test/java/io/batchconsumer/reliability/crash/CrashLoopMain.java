package io.batchconsumer.reliability.crash;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

import io.batchconsumer.core.BatchContainer;
import io.batchconsumer.core.ContainerSnapshot;
import io.batchconsumer.spring.listener.BatchListenerContainerRegistry;

/**
 * How a crash-loop consumer starts and reports: the application without a web server, banner or
 * start-up line, then {@code READY}, then every 50 ms {@code STATS <commitLag> <backlog> <succeeded>}
 * of one container, which the test reads from the process's standard output.
 *
 * <p>Threading: the reporter is a daemon thread of its own.
 */
public final class CrashLoopMain {

	private CrashLoopMain() {
	}

	/**
	 * Starts the application and its reporter.
	 * @param application the {@code @SpringBootConfiguration} class
	 * @param listenerId the container to report on
	 * @param args Spring Boot command-line properties
	 */
	public static void run(Class<?> application, String listenerId, String[] args) {
		SpringApplication spring = new SpringApplication(application);
		spring.setWebApplicationType(WebApplicationType.NONE);
		spring.setBannerMode(Banner.Mode.OFF);
		spring.setLogStartupInfo(false);
		ConfigurableApplicationContext context = spring.run(args);
		BatchContainer container = context.getBean(BatchListenerContainerRegistry.class).getContainer(listenerId);
		System.out.println("READY");
		System.out.flush();
		Thread reporter = new Thread(() -> report(container), "crash-loop-stats");
		reporter.setDaemon(true);
		reporter.start();
	}

	private static void report(BatchContainer container) {
		while (!Thread.currentThread().isInterrupted()) {
			ContainerSnapshot stats = container.stats();
			System.out.println("STATS " + stats.commitLag() + " " + stats.backlog() + " " + stats.messagesSucceeded());
			System.out.flush();
			try {
				Thread.sleep(50); // reporting pace, not synchronisation
			}
			catch (InterruptedException ex) {
				return;
			}
		}
	}

}
