"""The app's model of one episode, without widgets: the AppModel, the controllers (threads, timers), the Session runner, the Timeline the views read, and the catalog of choices."""
