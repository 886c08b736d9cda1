package io.batchconsumer.spring.autoconfigure;

import org.junit.jupiter.api.Test;

import org.springframework.beans.BeanWrapperImpl;

import io.batchconsumer.core.ConfigurableOptions;
import io.batchconsumer.core.ContainerOption;
import io.batchconsumer.core.ContainerOption.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OptionTable} walks the option table over the property classes: the global properties
 * start at the table's defaults, a listener's start unset. {@link OptionSourcesTests} holds the
 * classes themselves, the annotation and the IDE metadata to the table.
 */
class OptionTableTests {

	@Test
	void theGlobalPropertiesStartAtTheDefaultsOfTheTable() {
		BatchConsumerProperties properties = new BatchConsumerProperties();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.GLOBAL) && option != ContainerOption.GROUP) {
				assertThat((Object) option.convert(OptionTable.read(properties, option))).as(option.key())
					.isEqualTo(option.defaultValue());
			}
		}
		assertThat(properties.getGroup()).isNull();
	}

	@Test
	void aListenerStartsWithNothingSetAndHasAPropertyForEveryListenerOption() {
		BatchConsumerProperties.Listener listener = new BatchConsumerProperties.Listener();
		for (ContainerOption<?> option : ConfigurableOptions.all()) {
			if (option.isSettableAt(Level.LISTENER)) {
				assertThat(new BeanWrapperImpl(listener).isWritableProperty(OptionTable.path(option))).as(option.key())
					.isTrue();
				assertThat(OptionTable.read(listener, option)).as(option.key()).isNull();
			}
		}
	}

}
