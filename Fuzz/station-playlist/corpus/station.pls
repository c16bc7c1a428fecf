[playlist]
NumberOfEntries=2
File1=http://a.example:8000/s
Title1=A
File2=https://b.example/live.mp3
Version=2
