package io.batchconsumer.spring.autoconfigure;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.util.ClassUtils;

import io.batchconsumer.core.ContainerOptions;
import io.batchconsumer.core.exactlyonce.CompletionTable;
import io.batchconsumer.core.exactlyonce.ExactlyOnce;

/**
 * Builds the {@link ExactlyOnce} of a listener with {@code processing: exactly-once}: finds the
 * {@code DataSource} and the transaction manager (the application's only one, or the one named by
 * {@code batch-consumer.exactly-once.transaction-manager}), checks that they belong together and
 * that the listener method is not itself {@code @Transactional} with another manager, creates the
 * completion table when needed and registers the meter {@code batch.consumer.completions.pending}.
 * Each problem fails start-up with a message that says what to do. On an H2 database that is not
 * in memory it warns: H2 does not always roll back a transaction that was in flight when the
 * process was killed (docs/exactly-once.md).
 *
 * <p>Threading: used on the thread that creates the containers.
 */
final class ExactlyOnceSupport {

	static final String METER = "batch.consumer.completions.pending";

	private static final Logger logger = LoggerFactory.getLogger(ExactlyOnceSupport.class);

	private final ListableBeanFactory beanFactory;

	private final BatchConsumerProperties properties;

	ExactlyOnceSupport(ListableBeanFactory beanFactory, BatchConsumerProperties properties) {
		this.beanFactory = beanFactory;
		this.properties = properties;
	}

	/**
	 * The exactly-once wrapping of one listener.
	 * @param options the container's options
	 * @param method the listener method, checked for a conflicting {@code @Transactional}
	 * @return the exactly-once processing
	 * @throws IllegalStateException naming the listener and what is missing or wrong
	 */
	ExactlyOnce create(ContainerOptions options, Method method) {
		String listener = "Listener '" + options.id() + "' has processing: exactly-once";
		if (!ClassUtils.isPresent("org.springframework.jdbc.datasource.DataSourceUtils", getClass().getClassLoader())) {
			throw new IllegalStateException(listener + " but spring-jdbc is missing; add spring-boot-starter-jdbc");
		}
		DataSource dataSource = dataSource(listener);
		String managerName = managerName(listener);
		PlatformTransactionManager manager = this.beanFactory.getBean(managerName, PlatformTransactionManager.class);
		checkManagerIsForDataSource(listener, managerName, manager, dataSource);
		checkListenerTransaction(listener, method, managerName);
		warnOnH2(listener, dataSource);
		CompletionTable table = new CompletionTable(this.properties.getJdbc().getTablePrefix());
		if (!"never".equalsIgnoreCase(this.properties.getJdbc().getInitializeSchema())) {
			table.create(dataSource);
		}
		ExactlyOnce exactlyOnce = new ExactlyOnce(options, new SpringDeliveryTransaction(manager, dataSource), dataSource,
				table, this.properties.getExactlyOnce().getRetention());
		if (ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", getClass().getClassLoader())) {
			PendingGauge.register(this.beanFactory, options.id(), exactlyOnce);
		}
		return exactlyOnce;
	}

	private DataSource dataSource(String listener) {
		Map<String, DataSource> dataSources = BeanFactoryUtils.beansOfTypeIncludingAncestors(this.beanFactory,
				DataSource.class);
		if (dataSources.isEmpty()) {
			throw new IllegalStateException(listener + " but there is no DataSource: the listener's writes and the "
					+ "completion marks need one database; add spring-boot-starter-jdbc and spring.datasource.url");
		}
		if (dataSources.size() == 1) {
			return dataSources.values().iterator().next();
		}
		try {
			return this.beanFactory.getBean(DataSource.class);
		}
		catch (RuntimeException ex) {
			throw new IllegalStateException(listener + " but there are several DataSources " + dataSources.keySet()
					+ " and none is primary; mark the one of the listener's writes @Primary", ex);
		}
	}

	/**
	 * H2 keeps part of a transaction that was in flight at a SIGKILL in some runs (rows of a
	 * delivery without their marks, or marks without the rows), so exactly-once on an H2 file holds
	 * across clean restarts and in-process failures but not across a kill.
	 */
	private static void warnOnH2(String listener, DataSource dataSource) {
		String url;
		try (Connection connection = dataSource.getConnection()) {
			DatabaseMetaData metaData = connection.getMetaData();
			if (!"H2".equals(metaData.getDatabaseProductName())) {
				return;
			}
			url = metaData.getURL();
		}
		catch (SQLException ex) {
			return; // creating or reading the completion table says what is wrong with the database
		}
		if (url != null && !url.startsWith("jdbc:h2:mem:")) {
			logger.warn("{} on the H2 database {}: H2 does not always roll back a transaction that was in "
					+ "flight when its process was killed, so after a kill (SIGKILL, power loss) the writes of a "
					+ "message can be there twice or missing; exactly-once holds across clean restarts and failures "
					+ "inside the process. Use PostgreSQL or MySQL/MariaDB where a kill must not break it "
					+ "(docs/exactly-once.md)", listener, url);
		}
	}

	private String managerName(String listener) {
		String named = this.properties.getExactlyOnce().getTransactionManager();
		if (named != null && !named.isBlank()) {
			if (!this.beanFactory.containsBean(named) || !this.beanFactory.isTypeMatch(named, PlatformTransactionManager.class)) {
				throw new IllegalStateException(listener + " but batch-consumer.exactly-once.transaction-manager names '"
						+ named + "', which is not a PlatformTransactionManager bean");
			}
			return named;
		}
		String[] names = BeanFactoryUtils.beanNamesForTypeIncludingAncestors(this.beanFactory, PlatformTransactionManager.class);
		if (names.length == 0) {
			throw new IllegalStateException(listener + " but there is no PlatformTransactionManager; add "
					+ "spring-boot-starter-jdbc (which configures one for the DataSource) or declare a "
					+ "DataSourceTransactionManager bean");
		}
		if (names.length > 1) {
			throw new IllegalStateException(listener + " but there are several transaction managers "
					+ String.join(", ", names) + "; set batch-consumer.exactly-once.transaction-manager to the one "
					+ "of the DataSource the listener writes to");
		}
		return names[0];
	}

	private static void checkManagerIsForDataSource(String listener, String name, PlatformTransactionManager manager,
			DataSource dataSource) {
		Object resource = resourceOf(manager);
		if (resource instanceof DataSource managed && unwrap(managed) != unwrap(dataSource)) {
			throw new IllegalStateException(listener + " but the transaction manager '" + name + "' manages another "
					+ "DataSource than the one of the completion marks; the listener's writes and the marks would commit "
					+ "separately. Set batch-consumer.exactly-once.transaction-manager to the manager of that DataSource");
		}
	}

	/** The DataSource a manager manages: {@code DataSourceTransactionManager}, JPA's {@code getDataSource()}. */
	private static Object resourceOf(PlatformTransactionManager manager) {
		if (manager instanceof DataSourceTransactionManager jdbc) {
			return jdbc.getDataSource();
		}
		try {
			Method getter = manager.getClass().getMethod("getDataSource");
			return getter.invoke(manager);
		}
		catch (ReflectiveOperationException ex) {
			return (manager instanceof ResourceTransactionManager resourceManager) ? resourceManager.getResourceFactory()
					: null;
		}
	}

	private static DataSource unwrap(DataSource dataSource) {
		return (dataSource instanceof TransactionAwareDataSourceProxy proxy) ? proxy.getTargetDataSource() : dataSource;
	}

	private void checkListenerTransaction(String listener, Method method, String managerName) {
		Transactional transactional = AnnotatedElementUtils.findMergedAnnotation(method, Transactional.class);
		if (transactional == null) {
			transactional = AnnotatedElementUtils.findMergedAnnotation(method.getDeclaringClass(), Transactional.class);
		}
		if (transactional == null) {
			return;
		}
		String wanted = transactional.transactionManager();
		if (wanted.isEmpty() || wanted.equals(managerName)
				|| Arrays.asList(this.beanFactory.getAliases(managerName)).contains(wanted)) {
			return;
		}
		throw new IllegalStateException(listener + " and its method " + method.getDeclaringClass().getSimpleName() + "."
				+ method.getName() + " is @Transactional(\"" + wanted + "\"), another transaction manager than '"
				+ managerName + "' of the completion marks: its writes would commit apart from them. Remove "
				+ "@Transactional (each delivery is a transaction already) or set "
				+ "batch-consumer.exactly-once.transaction-manager=" + wanted);
	}

	/** Registers the gauge; a class of its own so that Micrometer stays optional. */
	private static final class PendingGauge {

		static void register(ListableBeanFactory beanFactory, String id, ExactlyOnce exactlyOnce) {
			beanFactory.getBeanProvider(io.micrometer.core.instrument.MeterRegistry.class)
				.ifAvailable((registry) -> io.micrometer.core.instrument.Gauge
					.builder(METER, exactlyOnce, ExactlyOnce::pending)
					.tag("listener", id)
					.description("Completion marks held for uncommitted messages (exactly-once)")
					.register(registry));
		}

	}

}
